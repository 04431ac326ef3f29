import { notImplemented } from './pending.js';

export const createOAuthToken = notImplemented('createOAuthToken');
