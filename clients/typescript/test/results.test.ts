// Results and awaitResult against a real database (clients/test.sh): a job completed with a result
// while a client waits for it, over node-postgres (Client, Pool) and postgres.js; a job of another
// store refused; a wait that times out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import pg from 'pg';
import postgres from 'postgres';

import { AwaitTimeoutError, NotFoundError, awaitResult, jobResult } from '../src/index.js';

const adminURL = process.env.JOBQ_CLIENTS_ADMIN_URL as string;
const appURL = process.env.JOBQ_CLIENTS_APP_URL as string;
const storeA = '5b0c1a7e-0000-4000-8000-0000000000a1';
const storeB = '5b0c1a7e-0000-4000-8000-0000000000b1';

let admin: pg.Client;

/** Enqueues and claims a job of store in queue; returns its id and lease token. */
async function running(store: string, queue: string): Promise<{ id: string; token: string }> {
  await admin.query(`SELECT jobq.enqueue('expire-tentative-for-store', jsonb_build_object('storeId', $1::text), store_id => $1::uuid, queue => $2)`,
    [store, queue]);
  const r = await admin.query<{ id: string; lease_token: string }>(
    `SELECT id::text, lease_token::text FROM jobq.claim_job('ts-await', ARRAY[$1], 1)`, [queue]);
  assert.equal(r.rows.length, 1);
  return { id: r.rows[0]!.id, token: r.rows[0]!.lease_token };
}

/** How many holds of the done doorbell the session has (jobq.hold_done_doorbell). */
async function doorbellHolds(client: pg.Client): Promise<number> {
  const r = await client.query(`SELECT count(*)::int AS n FROM pg_locks
    WHERE locktype = 'advisory' AND classid = 1785790468 AND objid = 0 AND pid = pg_backend_pid()`);
  return r.rows[0].n;
}

async function complete(job: { id: string; token: string }, result: unknown): Promise<void> {
  await admin.query('SELECT jobq.complete_job($1::bigint, $2::uuid, $3::text::jsonb)', [job.id, job.token, JSON.stringify(result)]);
}

/** An application's client whose session acts for store. */
function appConfig(store: string) {
  return { connectionString: appURL, options: `-c app.current_store_id=${store}` };
}

before(async () => {
  admin = new pg.Client({ connectionString: adminURL });
  await admin.connect();
});

after(async () => {
  await admin.end();
});

describe('awaitResult', () => {
  test('a node-postgres Client waits for the job and gets its typed result', async () => {
    const job = await running(storeA, 'ts_await_client');
    const client = new pg.Client(appConfig(storeA));
    await client.connect();
    try {
      const waiting = awaitResult<{ total: number }>(client, job.id, { timeoutMs: 60_000, pollMs: 3_600_000 });
      setTimeout(() => void complete(job, { total: 42 }), 200);
      const r = await waiting;
      assert.equal(r.state, 'succeeded');
      assert.deepEqual(r.result, { total: 42 });
      assert.ok(r.finishedAt instanceof Date);
      // The session no longer listens, nor holds the done doorbell.
      const ch = await client.query('SELECT count(*)::int AS n FROM pg_listening_channels()');
      assert.equal(ch.rows[0].n, 0);
      assert.equal(await doorbellHolds(client), 0);
    } finally {
      await client.end();
    }
  });

  test('a Pool and postgres.js wait too; a finished job returns at once', async () => {
    const job = await running(storeA, 'ts_await_pool');
    const pool = new pg.Pool(appConfig(storeA));
    const sql = postgres(appURL, { connection: { 'app.current_store_id': storeA } as Record<string, string> });
    try {
      const viaPool = awaitResult(pool, job.id, { timeoutMs: 60_000, pollMs: 3_600_000 });
      const viaPostgresJs = awaitResult(sql, job.id, { timeoutMs: 60_000, pollMs: 3_600_000 });
      setTimeout(() => void complete(job, 'done'), 300);
      assert.equal((await viaPool).result, 'done');
      assert.equal((await viaPostgresJs).result, 'done');
      assert.equal((await awaitResult(pool, job.id, { timeoutMs: 1 })).result, 'done');
      assert.equal((await jobResult(sql, job.id)).state, 'succeeded');
    } finally {
      await pool.end();
      await sql.end();
    }
  });

  test('another store\'s job is not found, and a job still running times out', async () => {
    const theirs = await running(storeB, 'ts_await_other');
    const mine = await running(storeA, 'ts_await_slow');
    const client = new pg.Client(appConfig(storeA));
    await client.connect();
    try {
      await assert.rejects(awaitResult(client, theirs.id, { timeoutMs: 1000 }), NotFoundError);
      await assert.rejects(awaitResult(client, mine.id, { timeoutMs: 300 }), (err: unknown) =>
        err instanceof AwaitTimeoutError && err.state === 'running');
      assert.equal(await doorbellHolds(client), 0, 'a wait that failed or timed out lets go of the done doorbell');
    } finally {
      await client.end();
      await complete(theirs, null);
      await complete(mine, null);
    }
  });
});
