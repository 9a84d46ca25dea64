// Calls that must NOT compile (GWT-2). Each line that tsc refuses ends with the error codes it must
// report there (// TS2345); test/typecheck.test.ts compares tsc's output with them, line by line.
import type pg from 'pg';
import { enqueueJob, type Uuid } from '../src/index.js';

declare const client: pg.Client;
declare const storeId: Uuid;

export async function bad(): Promise<void> {
  // A store task without its storeId.
  await enqueueJob(client, 'aggregate-daily-sales-for-store', { targetDate: '2026-05-05' }); // TS2345
  // A wrong type: userId is an integer.
  await enqueueJob(client, 'send-welcome-email', { storeId, userId: '42' }); // TS2322
  // A task the registry does not declare.
  await enqueueJob(client, 'send-welcome-mail', { storeId, userId: 42 }); // TS2345
  // A key the contract does not name.
  await enqueueJob(client, 'expire-tentative-for-store', { storeId, reason: 'cron' }); // TS2353
  // A system task with a store id, in the options or the payload.
  await enqueueJob(client, 'aggregate-daily-sales', { targetDate: '2026-05-05', reason: 'cron' }, { storeId }); // TS2322
  await enqueueJob(client, 'expire-tentative-reservations', { reason: 'cron', storeId }); // TS2353
  // A store task whose contract lacks storeId, with no store at all.
  await enqueueJob(client, 'rebuild-search-index', { full: true }); // TS2345
  // Not a uuid, not a date.
  await enqueueJob(client, 'expire-tentative-for-store', { storeId: 'store-7' }); // TS2322
  await enqueueJob(client, 'aggregate-daily-sales', { targetDate: 'yesterday', reason: 'cron' }); // TS2322
  // A job key mode jobq does not know.
  await enqueueJob(client, 'ping', {}, { jobKey: 'k', jobKeyMode: 'keep' }); // TS2322
  // Workflow options jobq does not know: a parent's failure, a sequence's failure, a parent that is no id.
  await enqueueJob(client, 'ping', {}, { dependsOn: ['1'], onParentFailure: 'explode' }); // TS2322
  await enqueueJob(client, 'ping', {}, { sequenceKey: 'nightly', onSequenceFailure: 'skip' }); // TS2322
  await enqueueJob(client, 'ping', {}, { dependsOn: [{ id: 1 }] }); // TS2322
}
