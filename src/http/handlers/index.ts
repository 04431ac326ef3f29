/**
 * Every operation of the document and its handler. `satisfies Handlers` makes a missing or mistyped
 * handler a compile error: an implementer replacing one keeps the same signature.
 */
import { getMe, getUsage, listAuditEvents, resetTestData } from './account.js';
import * as analytics from './analytics.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
import { createPublicChallenge } from './challenges.js';
import * as events from './events.js';
import { createFolder, deleteFolder, getFolder, listFolders, updateFolder } from './folders.js';
import { deleteFormLogo, setFormLogo } from './form-logos.js';
import { createForm, deleteForm, getForm, getFormVersion, listForms, listFormVersions, restoreFormVersion, updateForm } from './forms.js';
import * as integrations from './integrations.js';
import * as oauth from './oauth.js';
import * as publicOperations from './public.js';
import * as submissions from './submissions.js';
import { createInvite, listInvites, listMembers, removeMember, resendInvite, revokeInvite } from './team.js';
import * as transfers from './transfers.js';
import type { Handlers } from './types.js';

export const handlers = {
  listForms,
  createForm,
  getForm,
  updateForm,
  deleteForm,
  listFormVersions,
  getFormVersion,
  restoreFormVersion,
  setFormLogo,
  deleteFormLogo,
  listFolders,
  createFolder,
  getFolder,
  deleteFolder,
  updateFolder,
  listApiKeys,
  createApiKey,
  getApiKey,
  revokeApiKey,
  getMe,
  listAuditEvents,
  resetTestData,
  getUsage,
  listMembers,
  removeMember,
  listInvites,
  createInvite,
  revokeInvite,
  resendInvite,
  ...submissions,
  ...analytics,
  ...integrations,
  ...events,
  ...oauth,
  ...publicOperations,
  createPublicChallenge,
  ...transfers,
} satisfies Handlers;
