// The TypeScript client against a real database (clients/test.sh runs it inside jobq sandbox, on a
// database holding clients/testdata/registry.sql): enqueue over node-postgres (Client, Pool) and
// postgres.js, in the application's transaction and in a tenant's, and each typed error class
// from an error the database raised.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import pg from 'pg';
import postgres from 'postgres';

import * as jobq from '../src/index.js';
import { JobqError, enqueueJob, errorFromDb, setTenant, withTenant, type Uuid } from '../src/index.js';

function env(name: string): string {
  const v = process.env[name];
  assert.ok(v, `${name} is not set: run clients/test.sh inside jobq sandbox`);
  return v;
}

const adminURL = env('JOBQ_CLIENTS_ADMIN_URL'); // a superuser of the test database
const appURL = env('JOBQ_CLIENTS_APP_URL'); // a login that is a member of jobq_app

const storeA = '5b0c1a7e-0000-4000-8000-00000000000a' as const;
const storeB = '5b0c1a7e-0000-4000-8000-00000000000b' as const;

let admin: pg.Client;

interface JobRow {
  task: string;
  payload: Record<string, unknown>;
  store_id: string | null;
  queue: string;
  priority: number;
  max_attempts: number;
  job_key: string | null;
  run_at: Date;
}

async function job(id: string): Promise<JobRow | undefined> {
  const r = await admin.query<JobRow>(
    'SELECT task, payload, store_id::text, queue, priority, max_attempts, job_key, run_at FROM jobq.jobs WHERE id = $1',
    [id],
  );
  return r.rows[0];
}

before(async () => {
  admin = new pg.Client({ connectionString: adminURL });
  await admin.connect();
});

after(async () => {
  await admin.end();
});

describe('node-postgres', () => {
  test('enqueueJob writes the job with its payload and options, in the caller\'s transaction', async () => {
    const client = new pg.Client({ connectionString: appURL });
    await client.connect();
    try {
      await client.query('BEGIN');
      await setTenant(client, storeA);
      const id = await enqueueJob(client, 'expire-tentative-for-store', { storeId: storeA }, {
        jobKey: `expire_tentative:${storeA}`, jobKeyMode: 'preserve_run_at', maxAttempts: 7, queue: 'tentative',
        priority: -3, runAt: new Date('2030-01-02T03:04:05Z'),
      });
      assert.match(id, /^[0-9]+$/);
      // Not committed yet: another session does not see it.
      assert.equal(await job(id), undefined);
      await client.query('COMMIT');
      const row = await job(id);
      assert.deepEqual(row, {
        task: 'expire-tentative-for-store', payload: { storeId: storeA }, store_id: storeA, queue: 'tentative', priority: -3,
        max_attempts: 7, job_key: `expire_tentative:${storeA}`, run_at: new Date('2030-01-02T03:04:05Z'),
      });
    } finally {
      await client.end();
    }
  });

  test('a rolled-back transaction leaves no job', async () => {
    const client = new pg.Client({ connectionString: appURL });
    await client.connect();
    try {
      await client.query('BEGIN');
      await setTenant(client, storeA);
      const id = await enqueueJob(client, 'send-welcome-email', { storeId: storeA, userId: 5 });
      await client.query('ROLLBACK');
      assert.equal(await job(id), undefined);
    } finally {
      await client.end();
    }
  });

  test('withTenant on a Pool commits in the store, and the job keeps the task\'s defaults', async () => {
    const pool = new pg.Pool({ connectionString: appURL, max: 2 });
    try {
      const id = await withTenant(pool, storeB, (tx) =>
        enqueueJob(tx, 'send-operator-invitation-email', { storeId: storeB, invitationId: 'inv-1' }));
      const row = await job(id);
      assert.equal(row?.store_id, storeB);
      assert.equal(row?.queue, 'mail'); // the task's default queue
      // The tenant was SET LOCAL: the pool's connection has no store after the transaction.
      const r = await pool.query("SELECT coalesce(current_setting('app.current_store_id', true), '') AS s");
      assert.equal(r.rows[0].s, '');
    } finally {
      await pool.end();
    }
  });

  test('withTenant rolls back when fn throws, and rethrows', async () => {
    const client = new pg.Client({ connectionString: appURL });
    await client.connect();
    let id = '';
    try {
      await assert.rejects(withTenant(client, storeA, async (tx) => {
        id = await enqueueJob(tx, 'send-welcome-email', { storeId: storeA, userId: 6 });
        throw new Error('handler failed');
      }), /handler failed/);
      assert.match(id, /^[0-9]+$/);
      assert.equal(await job(id), undefined);
    } finally {
      await client.end();
    }
  });

  test('a store task takes its store from the storeId option when its contract names none', async () => {
    const id = await withTenant(admin, storeA, (tx) => enqueueJob(tx, 'rebuild-search-index', { full: true }, { storeId: storeA }));
    assert.equal((await job(id))?.store_id, storeA);
  });

  test('every contract type goes through as JSON, a Date as its ISO text', async () => {
    const id = await enqueueJob(admin, 'import-catalog-v2', {
      file: 'a.csv', rows: 3, ratio: 0.5, dryRun: null, options: { a: 1 }, tags: ['x'], extra: [1],
      batchId: '5b0c1a7e-0000-4000-8000-000000000001', day: '2024-02-29', notBefore: new Date('2026-05-05T03:00:00Z'),
      class: 'c', from: 'f', 'content-type': 'text/csv',
    });
    const row = await job(id);
    assert.equal(row?.store_id, null);
    assert.equal(row?.payload.notBefore, '2026-05-05T03:00:00.000Z');
    assert.equal(row?.payload['content-type'], 'text/csv');
  });
});

describe('postgres.js', () => {
  test('enqueueJob over sql, and withTenant over sql.begin', async () => {
    const sql = postgres(appURL, { max: 1, onnotice: () => undefined });
    try {
      const id = await enqueueJob(sql, 'ping', {}, { queue: 'pjs' });
      assert.equal((await job(id))?.queue, 'pjs');
      const storeJob = await withTenant(sql, storeB, (tx) => enqueueJob(tx, 'aggregate-daily-sales-for-store',
        { storeId: storeB, targetDate: '2026-05-05' }, { jobKey: 'agg:b' }));
      const row = await job(storeJob);
      assert.equal(row?.store_id, storeB);
      assert.equal(row?.job_key, 'agg:b');
      assert.equal(row?.max_attempts, 25);
      // A rejected transaction writes nothing.
      let rolledBack = '';
      await assert.rejects(withTenant(sql, storeB, async (tx) => {
        rolledBack = await enqueueJob(tx, 'expire-tentative-for-store', { storeId: storeB });
        throw new Error('no');
      }));
      assert.equal(await job(rolledBack), undefined);
    } finally {
      await sql.end();
    }
  });

  test('a database error becomes its class, with postgres.js\'s error as its cause', async () => {
    const sql = postgres(appURL, { max: 1, onnotice: () => undefined });
    try {
      const err = await enqueueJob(sql, 'aggregate-daily-sales', { targetDate: '2026-13-45', reason: 'cron' })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof jobq.PayloadInvalidError, String(err));
      assert.match(err.message, /targetDate/);
      assert.ok(err.cause instanceof postgres.PostgresError);
    } finally {
      await sql.end();
    }
  });
});

// The workflow options (docs/dependencies.md): each reaches jobq.enqueue as its argument, over both
// drivers, and a dependent or sequenced job waits blocked.
interface WorkflowRow {
  state: string;
  depends_on: string | null;
  on_parent_failure: string | null;
  sequence_key: string | null;
  on_sequence_failure: string | null;
}

async function workflow(id: string): Promise<WorkflowRow | undefined> {
  const r = await admin.query<WorkflowRow>(
    'SELECT state, depends_on::text, on_parent_failure, sequence_key, on_sequence_failure FROM jobq.jobs WHERE id = $1', [id]);
  return r.rows[0];
}

const drivers: Array<[string, () => { db: jobq.Db; end: () => Promise<void> }]> = [
  ['node-postgres', () => {
    const pool = new pg.Pool({ connectionString: adminURL, max: 1 });
    return { db: pool, end: () => pool.end() };
  }],
  ['postgres.js', () => {
    const sql = postgres(adminURL, { max: 1, onnotice: () => undefined });
    return { db: sql, end: () => sql.end() };
  }],
];

for (const [driver, open] of drivers) {
  describe(`workflow options over ${driver}`, () => {
    test('a child depending on its parents is blocked, with its on_parent_failure; ids as string, number or bigint', async () => {
      const { db, end } = open();
      try {
        const parent = await enqueueJob(db, 'ping', {}, { runAt: new Date('2030-01-01T00:00:00Z') });
        const other = await enqueueJob(db, 'ping', {});
        const child = await enqueueJob(db, 'ping', {}, { dependsOn: [parent, Number(other)], onParentFailure: 'run' });
        assert.deepEqual(await workflow(child), {
          state: 'blocked', depends_on: `{${parent},${other}}`, on_parent_failure: 'run', sequence_key: null, on_sequence_failure: null,
        });
        const grandchild = await enqueueJob(db, 'ping', {}, { dependsOn: [BigInt(child)] });
        assert.deepEqual(await workflow(grandchild), {
          state: 'blocked', depends_on: `{${child}}`, on_parent_failure: 'cancel', sequence_key: null, on_sequence_failure: null,
        });
        // An empty list is no dependency: a plain job.
        const plain = await enqueueJob(db, 'ping', {}, { dependsOn: [] });
        assert.deepEqual(await workflow(plain), {
          state: 'queued', depends_on: null, on_parent_failure: null, sequence_key: null, on_sequence_failure: null,
        });
      } finally {
        await end();
      }
    });

    test('the second job of a sequence is blocked behind the first', async () => {
      const { db, end } = open();
      try {
        const key = `nightly-${driver}`;
        const first = await enqueueJob(db, 'aggregate-daily-sales', { targetDate: '2026-05-05', reason: 'cron' }, { sequenceKey: key });
        const second = await enqueueJob(db, 'aggregate-daily-sales', { targetDate: '2026-05-06', reason: 'cron' },
          { sequenceKey: key, onSequenceFailure: 'continue' });
        assert.deepEqual(await workflow(first), {
          state: 'queued', depends_on: null, on_parent_failure: null, sequence_key: key, on_sequence_failure: 'hold',
        });
        assert.deepEqual(await workflow(second), {
          state: 'blocked', depends_on: null, on_parent_failure: null, sequence_key: key, on_sequence_failure: 'continue',
        });
      } finally {
        await end();
      }
    });

    test('refusals: a bad on_parent_failure, an unknown parent, a blank sequence key, a string that is no id', async () => {
      const { db, end } = open();
      try {
        const parent = await enqueueJob(db, 'ping', {});
        const bad = await enqueueJob(db, 'ping', {}, { dependsOn: [parent], onParentFailure: 'explode' as 'run' })
          .then(() => undefined, (e: unknown) => e);
        assert.ok(bad instanceof jobq.InvalidArgumentError, String(bad));
        assert.equal(bad.code, 'JOB.INVALID_ARGUMENT');
        const missing = await enqueueJob(db, 'ping', {}, { dependsOn: ['9000000000000'] }).then(() => undefined, (e: unknown) => e);
        assert.ok(missing instanceof jobq.DependencyNotFoundError, String(missing));
        assert.equal(missing.code, 'JOB.DEPENDENCY_NOT_FOUND');
        await assert.rejects(enqueueJob(db, 'ping', {}, { sequenceKey: '  ' }), jobq.InvalidArgumentError);
        // Checked before the database: '1,2' would be two ids in an array's text.
        const before = (await admin.query('SELECT count(*)::int AS n FROM jobq.jobs')).rows[0].n;
        await assert.rejects(enqueueJob(db, 'ping', {}, { dependsOn: [`${parent},${parent}`] }), TypeError);
        await assert.rejects(enqueueJob(db, 'ping', {}, { dependsOn: [1.5] }), TypeError);
        assert.equal((await admin.query('SELECT count(*)::int AS n FROM jobq.jobs')).rows[0].n, before);
      } finally {
        await end();
      }
    });
  });
}

// Calls the types refuse, made anyway (as JavaScript would): the database refuses them, and the
// client throws the class of the catalogued error.
describe('typed errors from real enqueues', () => {
  const cases: Array<[string, new (...a: any[]) => JobqError, (db: pg.Client) => Promise<unknown>]> = [
    ['unknown task', jobq.UnknownTaskError, (db) => enqueueJob(db, 'no-such-task' as 'ping', {})],
    ['payload breaks the contract (no calendar day)', jobq.PayloadInvalidError,
      (db) => enqueueJob(db, 'aggregate-daily-sales', { targetDate: '2026-02-29', reason: 'cron' })],
    ['store task without a store', jobq.StoreRequiredError, (db) => enqueueJob(db, 'rebuild-search-index', {} as never)],
    ['system task with a store', jobq.StoreNotAllowedError, (db) => enqueueJob(db, 'ping', {}, { storeId: storeA as never })],
    ['job key mode', jobq.UnknownJobKeyModeError, (db) => enqueueJob(db, 'ping', {}, { jobKey: 'k', jobKeyMode: 'keep' as 'replace' })],
    ['max attempts', jobq.MaxAttemptsInvalidError, (db) => enqueueJob(db, 'ping', {}, { maxAttempts: 0 })],
    ['timeout', jobq.LeaseInvalidError, (db) => enqueueJob(db, 'ping', {}, { timeout: '0 seconds' })],
    ['queue too long', jobq.ValueTooLongError, (db) => enqueueJob(db, 'ping', {}, { queue: 'q'.repeat(300) })],
    ['unique_for without a key', jobq.InvalidArgumentError, (db) => enqueueJob(db, 'ping', {}, { uniqueFor: '1 hour' })],
  ];
  for (const [name, cls, call] of cases) {
    test(name, async () => {
      const err = await call(admin).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof cls, `want ${cls.name}, got ${String(err)} (${(err as { code?: string })?.code})`);
      assert.ok(err instanceof JobqError);
      assert.equal(err.code, (cls as unknown as { code: string }).code);
      assert.equal(err.name, cls.name);
      assert.ok(err.hint && err.hint.length > 0);
      assert.equal((err.cause as { code?: string }).code, err.sqlstate);
    });
  }

  test('an application in store A naming store B: TenantMismatchError; a system task not open to applications: NotAllowedError', async () => {
    const client = new pg.Client({ connectionString: appURL });
    await client.connect();
    try {
      await client.query('BEGIN');
      await setTenant(client, storeA);
      await assert.rejects(enqueueJob(client, 'expire-tentative-for-store', { storeId: storeB }), jobq.TenantMismatchError);
      await client.query('ROLLBACK');
      await assert.rejects(enqueueJob(client, 'expire-tentative-reservations', { reason: 'cron' }), jobq.NotAllowedError);
    } finally {
      await client.end();
    }
  });

  test('every catalogued error becomes its own class (raised by jobq._raise, jobq\'s one raiser)', async () => {
    const codes = await admin.query<{ code: string; sqlstate: string; hint: string }>(
      'SELECT code, sqlstate, hint FROM jobq.error_codes ORDER BY sqlstate');
    const classes = Object.values(jobq).filter((v): v is typeof JobqError & { code: string } =>
      typeof v === 'function' && v.prototype instanceof JobqError);
    assert.equal(classes.length, codes.rows.length, 'one class per catalogued error');
    for (const { code, sqlstate, hint } of codes.rows) {
      const raised = await admin.query('SELECT jobq._raise($1, $2)', [code, 'from the test']).then(() => undefined, (e: unknown) => e);
      const typed = errorFromDb(raised);
      const cls = classes.find((c) => c.code === code);
      assert.ok(cls, `no class for ${code}`);
      assert.ok(typed instanceof cls, `${code} (${sqlstate}) became ${String(typed)}`);
      assert.equal((typed as JobqError).sqlstate, sqlstate);
      assert.equal((typed as JobqError).hint, hint);
      assert.equal((typed as JobqError).message, `${code}: from the test`);
    }
    // Anything else is returned as it is.
    const other = await admin.query('SELECT 1/0').then(() => undefined, (e: unknown) => e);
    assert.equal(errorFromDb(other), other);
  });
});

test('asUuid and asIsoDate check the shape of a plain string', () => {
  const s: string = storeA;
  const u: Uuid = jobq.asUuid(s);
  assert.equal(u, storeA);
  assert.throws(() => jobq.asUuid('store-7'), TypeError);
  assert.equal(jobq.asIsoDate('2026-05-05'), '2026-05-05');
  assert.throws(() => jobq.asIsoDate('05/05/2026'), TypeError);
});
