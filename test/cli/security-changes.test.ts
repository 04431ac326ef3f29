import { describe, expect, it } from 'vitest';
import { parseAcknowledgements, type SecurityRequirement, securityChanges, unacknowledged } from '../../src/cli/security-changes.js';

const doc = (deleteSecurity?: unknown, global: unknown = [{ apiKey: [] }, { oauth2: [] }]) => ({
  security: global,
  paths: {
    '/forms/{id}': {
      get: { operationId: 'getForm' },
      delete: { operationId: 'deleteForm', ...(deleteSecurity === undefined ? {} : { security: deleteSecurity }) },
    },
  },
});
const readWrite: SecurityRequirement[] = [{ apiKey: ['read_write'] }, { oauth2: ['read_write'] }];
const read: SecurityRequirement[] = [{ apiKey: ['read'] }, { oauth2: ['read'] }];

describe('security requirement changes', () => {
  it('when an operation names another scope, then it is a change, whichever the direction', () => {
    expect(securityChanges(doc(readWrite), doc(read))).toEqual([
      { operationId: 'deleteForm', operation: 'DELETE /forms/{id}', before: readWrite, after: read },
    ]);
    expect(securityChanges(doc(read), doc(readWrite))).toHaveLength(1);
  });

  it('when an operation drops its own requirement for the document-wide one, or the document-wide one changes, then it is a change', () => {
    expect(securityChanges(doc(readWrite), doc()).map((change) => change.operationId)).toEqual(['deleteForm']);
    expect(securityChanges(doc(readWrite), doc(readWrite, [])).map((change) => change.operationId)).toEqual(['getForm']);
    expect(securityChanges(doc(readWrite), doc([])).map((change) => change.after)).toEqual([[]]);
  });

  it('when only the order of requirements or scopes differs, or an operation is added or removed, then it is no change', () => {
    expect(securityChanges(doc(readWrite), doc([...readWrite].reverse()))).toEqual([]);
    const added = doc(readWrite);
    Object.assign(added.paths, { '/folders': { get: { operationId: 'listFolders' } } });
    expect(securityChanges(doc(readWrite), added)).toEqual([]);
    expect(securityChanges(added, doc(readWrite))).toEqual([]);
  });

  it('when the reviewed list has the same operation, before and after, then the change is acknowledged; otherwise not', () => {
    const changes = securityChanges(doc(readWrite), doc(read));
    const entry = { operationId: 'deleteForm', before: readWrite, after: read, reason: 'Reviewed.' };
    expect(unacknowledged(changes, [entry])).toEqual([]);
    expect(unacknowledged(changes, [{ ...entry, operationId: 'getForm' }])).toEqual(changes);
    expect(unacknowledged(changes, [{ ...entry, after: readWrite }])).toEqual(changes);
    expect(unacknowledged(changes, [{ ...entry, before: read }])).toEqual(changes);
  });

  it('when the reviewed list is malformed or an entry gives no reason, then reading it fails', () => {
    expect(parseAcknowledgements('acknowledged: []\n')).toEqual([]);
    expect(() => parseAcknowledgements('{}')).toThrow(/acknowledged/);
    const entry = 'acknowledged:\n  - operationId: deleteForm\n    before: [{ apiKey: [read_write] }]\n    after: [{ apiKey: [read] }]\n';
    expect(() => parseAcknowledgements(entry)).toThrow(/entry 1 .* reason/);
    expect(() => parseAcknowledgements(`${entry}    reason: '  '\n`)).toThrow(/entry 1/);
    expect(parseAcknowledgements(`${entry}    reason: Reviewed.\n`)).toEqual([
      { operationId: 'deleteForm', before: [{ apiKey: ['read_write'] }], after: [{ apiKey: ['read'] }], reason: 'Reviewed.' },
    ]);
  });
});
