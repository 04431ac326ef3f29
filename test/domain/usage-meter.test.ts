/** The in-memory API request meter: no write per request, one additive write per workspace and month per flush. */
import { describe, expect, it } from 'vitest';
import { apiRequestMeter, monthOf } from '../../src/domain/usage/meter.js';
import { calendarMonth } from '../../src/domain/usage/service.js';
import type { ApiRequestCount } from '../../src/store/usage-store.js';

function recordingStore(failures = 0) {
  const batches: ApiRequestCount[][] = [];
  let toFail = failures;
  return {
    batches,
    addApiRequests: async (counts: readonly ApiRequestCount[]) => {
      if (toFail-- > 0) throw new Error('database unavailable');
      batches.push([...counts]);
    },
  };
}

describe('apiRequestMeter', () => {
  it('when requests are counted, then nothing is written until a flush, which writes one count per workspace and month', async () => {
    const store = recordingStore();
    const meter = apiRequestMeter(store);
    for (let i = 0; i < 1000; i++) meter.count('ws_a', new Date('2026-11-30T23:59:59.000Z'));
    meter.count('ws_a', new Date('2026-12-01T00:00:00.000Z'));
    meter.count('ws_b', new Date('2026-11-02T00:00:00.000Z'));
    expect(store.batches).toEqual([]);
    await meter.flush();
    expect(store.batches).toEqual([
      [
        { workspaceId: 'ws_a', month: '2026-11', count: 1000 },
        { workspaceId: 'ws_a', month: '2026-12', count: 1 },
        { workspaceId: 'ws_b', month: '2026-11', count: 1 },
      ],
    ]);
    await meter.flush();
    expect(store.batches).toHaveLength(1);
  });

  it('when a flush fails, then its counts are kept and written by the next one, with what came since', async () => {
    const store = recordingStore(1);
    const meter = apiRequestMeter(store);
    meter.count('ws_a', new Date('2026-11-05T00:00:00.000Z'));
    await expect(meter.flush()).rejects.toThrow('database unavailable');
    meter.count('ws_a', new Date('2026-11-05T00:00:01.000Z'));
    await meter.flush();
    expect(store.batches).toEqual([[{ workspaceId: 'ws_a', month: '2026-11', count: 2 }]]);
  });
});

describe('calendarMonth', () => {
  it('when asked for the month before January, then it is December of the year before, in UTC', () => {
    expect(calendarMonth(new Date('2027-01-15T10:00:00.000Z'), -1)).toEqual({
      month: '2026-12',
      start: '2026-12-01T00:00:00.000Z',
      end: '2027-01-01T00:00:00.000Z',
    });
  });
});

describe('monthOf', () => {
  it('when times go back and forth across months and years, then each gets its own UTC month', () => {
    for (const [at, month] of [
      ['2026-01-31T23:59:59.999Z', '2026-01'],
      ['2026-02-01T00:00:00.000Z', '2026-02'],
      ['2026-01-15T12:00:00.000Z', '2026-01'],
      ['2026-12-31T23:59:59.999Z', '2026-12'],
      ['2027-01-01T00:00:00.000Z', '2027-01'],
      ['2025-01-01T00:00:00.000Z', '2025-01'],
      // Still January in UTC, though February east of Greenwich.
      ['2026-01-31T23:30:00.000-00:00', '2026-01'],
    ] as const) {
      expect(monthOf(new Date(at)), at).toBe(month);
    }
  });
});
