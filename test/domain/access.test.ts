/**
 * What a principal may reach, without a server: test mode and attachments decide visibility and change rights.
 * The HTTP tests show the same rules on the wire; these pin each branch, including the forms in no folder.
 */
import { describe, expect, it } from 'vitest';
import type { Attachment } from '../../src/contract.js';
import { actorOf, assertFormVisible, assertMayChange, assertWorkspaceWide, type Principal } from '../../src/domain/access.js';

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  authType: 'api_key',
  id: 'key_1',
  name: 'CI key',
  workspace: { id: 'ws_1', name: 'Acme', plan: 'business', rateLimits: null },
  environment: 'live',
  scope: 'read_write',
  attachment: { type: 'workspace' },
  expiresAt: null,
  credentialId: 'key_1',
  ...overrides,
});
const attachedTo = (attachment: Attachment) => principal({ attachment });
const form = (overrides: Partial<{ id: string; test: boolean; folder_id: string | null }> = {}) => ({
  id: 'frm_1',
  test: false,
  folder_id: null,
  ...overrides,
});

describe('assertFormVisible', () => {
  it('when a live key asks for a test-only form, then 404 resource_not_found, never a hint that it exists', () => {
    expect(() => assertFormVisible(principal(), form({ test: true }))).toThrow(
      expect.objectContaining({ status: 404, code: 'resource_not_found' }),
    );
  });

  it('when a test key asks for a test-only form or a live form, then both are visible', () => {
    const testKey = principal({ environment: 'test' });
    expect(() => assertFormVisible(testKey, form({ test: true }))).not.toThrow();
    expect(() => assertFormVisible(testKey, form())).not.toThrow();
  });

  it('when a live key asks for a live form, then it is visible', () => {
    expect(() => assertFormVisible(principal(), form())).not.toThrow();
  });

  it('when a key attached to a form asks for that form, then it is visible; for another form, then 403 form_not_attached', () => {
    const key = attachedTo({ type: 'form', form_id: 'frm_1' });
    expect(() => assertFormVisible(key, form())).not.toThrow();
    expect(() => assertFormVisible(key, form({ id: 'frm_2' }))).toThrow(
      expect.objectContaining({ status: 403, code: 'form_not_attached', message: expect.stringContaining('another form') }),
    );
  });

  it('when a key attached to a folder asks for a form in it, then it is visible', () => {
    expect(() => assertFormVisible(attachedTo({ type: 'folder', folder_id: 'fld_1' }), form({ folder_id: 'fld_1' }))).not.toThrow();
  });

  it('when a key attached to a folder asks for a form in another folder or in no folder, then 403 form_not_attached', () => {
    const key = attachedTo({ type: 'folder', folder_id: 'fld_1' });
    for (const folder_id of ['fld_2', null]) {
      expect(() => assertFormVisible(key, form({ folder_id }))).toThrow(
        expect.objectContaining({ status: 403, code: 'form_not_attached', message: expect.stringContaining('folder') }),
      );
    }
  });

  it('when a key attached to a form asks for another form in the same folder, then 403 (the folder does not widen it)', () => {
    const key = attachedTo({ type: 'form', form_id: 'frm_1' });
    expect(() => assertFormVisible(key, form({ id: 'frm_2', folder_id: 'fld_1' }))).toThrow(
      expect.objectContaining({ code: 'form_not_attached' }),
    );
  });
});

describe('assertMayChange', () => {
  it('when a test key changes a live resource, then 403 live_resource', () => {
    expect(() => assertMayChange(principal({ environment: 'test' }), { test: false })).toThrow(
      expect.objectContaining({ status: 403, code: 'live_resource' }),
    );
  });

  it('when a test key changes a test resource, or a live key any resource, then it may', () => {
    expect(() => assertMayChange(principal({ environment: 'test' }), { test: true })).not.toThrow();
    expect(() => assertMayChange(principal(), { test: false })).not.toThrow();
    expect(() => assertMayChange(principal(), { test: true })).not.toThrow();
  });
});

describe('assertWorkspaceWide', () => {
  it('when a workspace key administers the workspace, then it may', () => {
    expect(() => assertWorkspaceWide(principal(), 'manage API keys')).not.toThrow();
  });

  it('when a key attached to a form or a folder administers the workspace, then 403 form_not_attached naming the attachment', () => {
    for (const attachment of [
      { type: 'form', form_id: 'frm_1' },
      { type: 'folder', folder_id: 'fld_1' },
    ] as const) {
      expect(() => assertWorkspaceWide(attachedTo(attachment), 'manage API keys')).toThrow(
        expect.objectContaining({
          status: 403,
          code: 'form_not_attached',
          message: `This key is attached to a ${attachment.type} and cannot manage API keys.`,
        }),
      );
    }
  });
});

describe('actorOf', () => {
  it('when an audit event records the caller, then the actor carries its auth type, id and name', () => {
    expect(actorOf(principal({ authType: 'oauth_token', id: 'oat_1', name: null }))).toEqual({
      type: 'oauth_token',
      id: 'oat_1',
      name: null,
    });
  });
});
