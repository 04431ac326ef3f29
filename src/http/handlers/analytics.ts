import { notImplemented } from './pending.js';

export const getAnalytics = notImplemented('getAnalytics');
