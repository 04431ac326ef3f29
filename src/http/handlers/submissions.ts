import { notImplemented } from './pending.js';

export const listSubmissions = notImplemented('listSubmissions');
export const createSubmission = notImplemented('createSubmission');
export const getSubmission = notImplemented('getSubmission');
export const deleteSubmission = notImplemented('deleteSubmission');
export const rescoreSubmission = notImplemented('rescoreSubmission');
