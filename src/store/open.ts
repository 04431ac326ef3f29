import { join } from 'node:path';
import type { Warn } from '../private-files.js';
import { createPostgresStore } from './postgres/index.js';
import { createSqliteStore } from './sqlite/index.js';
import type { Store } from './types.js';

/** Where the data lives: PostgreSQL when a database URL is configured, else the SQLite file in the data directory. */
export interface StoreLocation {
  databaseUrl: string | null;
  /** The most connections the PostgreSQL pool opens (`DATABASE_POOL_SIZE`); unset: the pool's default. */
  databasePoolSize?: number;
  /** Server processes sharing the database (`WORKERS`); unset: one. */
  workers?: number;
  dataDir: string;
}

/**
 * The store the server and the admin commands share, chosen by configuration (`DATABASE_URL`, `DATA_DIR`).
 * `shortLived`: a command that opens, writes and closes, for which a background checkpointer is not worth starting,
 * and which may run beside the server; a long-lived store takes the SQLite file's server lease (sqlite/server-lease.ts).
 * `warn` hears what an operator should fix in the data directory (../private-files.ts); default: stderr.
 */
export async function openStore(
  location: StoreLocation,
  { shortLived = false, warn }: { shortLived?: boolean; warn?: Warn } = {},
): Promise<Store> {
  if (location.databaseUrl !== null)
    return createPostgresStore(location.databaseUrl, { max: location.databasePoolSize, processes: location.workers });
  return createSqliteStore(join(location.dataDir, 'form-funnel.db'), {
    backgroundCheckpoints: !shortLived,
    serverLease: !shortLived,
    warn,
  });
}
