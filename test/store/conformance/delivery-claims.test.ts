/**
 * Every store: which due attempts a claim takes when there are more candidates than free places. Workspaces take
 * turns (each one's earliest attempt before any workspace's second), and within a workspace its integrations do,
 * so a backlog never sits in front of another's first attempt. The figures are exact: an order by due time alone
 * would take the backlog's first two.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/types.js';
import { createTestStore, storeKinds } from '../../support/stores.js';
import { at, audit, event, integration, workspace } from './fixtures.js';

describe.each(storeKinds)('delivery claims on the %s store', (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await createTestStore(kind);
  });
  afterEach(async () => {
    await store.close();
  });

  /** An integration of the workspace with one first attempt due at each of `seconds`; returns the events' ids. */
  const backlog = async (workspaceId: string, seconds: number[]) => {
    const hook = integration();
    await store.integrations.create(
      { integration: hook, workspaceId, environment: 'live', signingSecret: 'whsec_1' },
      audit(workspaceId, 'integration.created'),
    );
    const ids: string[] = [];
    for (const second of seconds) {
      const published = { ...event(workspaceId), createdAt: at(second) };
      await store.integrations.publish(published, { environments: ['live'], mock: false });
      ids.push(published.id);
    }
    return ids;
  };
  const claim = (limit: number, perWorkspace = 100) =>
    store.integrations.claimDue({ now: at(100), leaseUntil: at(160), limit, perIntegration: 100, perWorkspace });

  it("when one workspace's backlog is due first and the claim has fewer places than candidates, then the other workspace's first attempt is taken second", async () => {
    const busy = await backlog(await workspace(store), [10, 11, 12]);
    const [quiet] = await backlog(await workspace(store), [20]);

    const claimed = await claim(2);

    expect(claimed.map((delivery) => delivery.event.id)).toEqual([busy[0], quiet]);
    // The rest of the backlog comes next, in its order.
    expect((await claim(5)).map((delivery) => delivery.event.id)).toEqual([busy[1], busy[2]]);
  });

  it("when one integration's backlog is due first and the workspace has fewer places than candidates, then its other integration's first attempt is taken second", async () => {
    const workspaceId = await workspace(store);
    const busy = await backlog(workspaceId, [10, 11, 12]);
    const [quiet] = await backlog(workspaceId, [20]);

    const claimed = await claim(10, 2);

    expect(claimed.map((delivery) => delivery.event.id)).toEqual([busy[0], quiet]);
  });
});
