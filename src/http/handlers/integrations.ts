import { notImplemented } from './pending.js';

export const listIntegrations = notImplemented('listIntegrations');
export const createIntegration = notImplemented('createIntegration');
export const getIntegration = notImplemented('getIntegration');
export const updateIntegration = notImplemented('updateIntegration');
export const deleteIntegration = notImplemented('deleteIntegration');
export const dispatchIntegration = notImplemented('dispatchIntegration');
export const listIntegrationLogs = notImplemented('listIntegrationLogs');
