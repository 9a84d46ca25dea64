// Calls that must compile (GWT-1): every one is a call an application makes. Checked by
// test/typecheck.test.ts with tsc --noEmit; never run.
import type pg from 'pg';
import type postgres from 'postgres';
import { enqueueJob, setTenant, withTenant, type Uuid } from '../src/index.js';

declare const client: pg.Client;
declare const pool: pg.Pool;
declare const poolClient: pg.PoolClient;
declare const sql: postgres.Sql;
declare const storeId: Uuid;
declare const ids: readonly string[];

export async function good(): Promise<string[]> {
  const targetDate = '2026-05-05';
  return [
    await enqueueJob(client, 'aggregate-daily-sales-for-store', { storeId, targetDate }),
    await enqueueJob(pool, 'expire-tentative-for-store', { storeId }, {
      jobKey: `expire_tentative:${storeId}`, jobKeyMode: 'preserve_run_at', maxAttempts: 10, runAt: new Date(), queue: 'q', priority: -5,
    }),
    await enqueueJob(poolClient, 'send-welcome-email', { storeId, userId: 42 }, { storeId }),
    await enqueueJob(sql, 'aggregate-daily-sales', { targetDate: '2026-05-05', reason: 'cron' }),
    await enqueueJob(sql, 'ping', {}),
    await enqueueJob(client, 'cleanup-deleted-customers-for-store', { storeId, cutoffIso: new Date() }),
    await enqueueJob(client, 'purge-deleted-customer-notes-for-store', { storeId, cutoffIso: '2026-02-01T00:00:00Z' }),
    await enqueueJob(client, 'import-catalog-v2', {
      file: 'a.csv', rows: 3, ratio: 0.5, dryRun: null, options: { a: 1 }, tags: ['x'], extra: 1,
      batchId: '5b0c1a7e-0000-4000-8000-000000000001', day: '2024-02-29', class: 'c', from: 'f', 'content-type': 'text/csv',
    }),
    // A store task whose contract does not name storeId: the store from the option, or the payload.
    await enqueueJob(client, 'rebuild-search-index', { full: true }, { storeId }),
    await enqueueJob(client, 'rebuild-search-index', { storeId }),
    await withTenant(pool, storeId, (tx) => enqueueJob(tx, 'send-welcome-email', { storeId, userId: 1 })),
    // Workflow options: parents by the id enqueueJob returned (or a number, a bigint), a sequence.
    await enqueueJob(client, 'ping', {}, { dependsOn: [await enqueueJob(client, 'ping', {}), 12, 13n], onParentFailure: 'run' }),
    await enqueueJob(sql, 'aggregate-daily-sales', { targetDate: '2026-05-05', reason: 'cron' }, {
      sequenceKey: 'sales', onSequenceFailure: 'continue',
    }),
    await enqueueJob(client, 'rebuild-search-index', { storeId }, { dependsOn: ids, onParentFailure: 'cancel', onSequenceFailure: 'hold' }),
    await withTenant(sql, storeId, async (tx) => {
      await setTenant(tx, storeId);
      return enqueueJob(tx, 'expire-tentative-for-store', { storeId });
    }),
  ];
}
