// Results and waiting for them (docs/results.md): jobResult reads jobq.job_result, awaitResult
// waits for a job to end on the channel jobq_done, whose notifications carry only the job's id.
// Hand-written; it runs over the application's own driver like the rest of the client.
import type { JobId, PgPool, PgQueryable, PostgresJsSql } from './runtime.js';
import { errorFromDb } from './tasks.js';

/** The channel on which jobq notifies, at the commit, that a job ended; the payload is its id alone. */
export const doneChannel = 'jobq_done';

/** What jobq.job_result says of a job. T is the type of the result its handler returned. */
export interface JobResult<T = unknown> {
  jobId: string;
  /** queued, running, retry_pending ... while it lives; succeeded, dead or canceled once it ended. */
  state: string;
  /** The result of a succeeded job (any JSON value); null when none, or while it runs. */
  result: T | null;
  /** When it ended; null while it lives. */
  finishedAt: Date | null;
}

/** Thrown by awaitResult when the job has not ended within the timeout. */
export class AwaitTimeoutError extends Error {
  readonly jobId: string;
  /** The job's state when the wait gave up. */
  readonly state: string;
  constructor(jobId: string, state: string, timeoutMs: number) {
    super(`jobq: job ${jobId} has not ended within ${timeoutMs} ms (state ${state})`);
    this.name = 'AwaitTimeoutError';
    this.jobId = jobId;
    this.state = state;
  }
}

/** A node-postgres Client (connected) or PoolClient: what can LISTEN. */
export interface PgListener extends PgQueryable {
  on(event: 'notification', listener: (n: { channel: string; payload?: string }) => void): unknown;
  removeListener(event: 'notification', listener: (n: { channel: string; payload?: string }) => void): unknown;
}

/** Options of awaitResult. */
export interface AwaitOptions {
  /** How long to wait for the job to end, in milliseconds (required: a wait always ends). */
  timeoutMs: number;
  /** How often to read the job anyway, were a notification lost (a hint only); default 5000. */
  pollMs?: number;
}

type Row = { state: string; result: string | null; finished_at: Date | string | null };

async function readResult<T>(db: PgQueryable | PostgresJsSql, jobId: string): Promise<JobResult<T>> {
  // The result goes as text: each driver parses its own way; JSON.parse keeps every JSON value.
  const text = 'SELECT state, result::text AS result, finished_at FROM jobq.job_result($1::bigint)';
  let rows: readonly unknown[];
  try {
    rows = typeof db === 'function' ? await (db as PostgresJsSql).unsafe(text, [jobId]) : (await (db as PgQueryable).query(text, [jobId])).rows;
  } catch (err) {
    throw errorFromDb(err);
  }
  const r = rows[0] as Row;
  return {
    jobId,
    state: r.state,
    result: r.result === null ? null : (JSON.parse(r.result) as T),
    finishedAt: r.finished_at === null ? null : new Date(r.finished_at),
  };
}

/**
 * The state and result of job jobId (jobq.job_result) as the connection's role may read it: an
 * application only its store's jobs (the session's or transaction's app.current_store_id); any other
 * id throws NotFoundError (JQ202).
 */
export async function jobResult<T = unknown>(db: PgQueryable | PostgresJsSql, jobId: JobId): Promise<JobResult<T>> {
  return readResult<T>(db, String(jobId));
}

/**
 * The done doorbell's retries: while jobq.hold_done_doorbell says false (an end of a job probes it,
 * for microseconds) or jobq.done_quiet says false (an end that did not notify is in flight),
 * awaitResult reads the job and asks again after doneRetryMinMs, doubling up to doneRetryMaxMs.
 */
const doneRetryMinMs = 1;
const doneRetryMaxMs = 100;

/** One statement on the session that holds the done doorbell; its rows. */
type Run = (text: string) => Promise<readonly unknown[]>;

async function askBool(run: Run, fn: 'hold_done_doorbell' | 'done_quiet' | 'release_done_doorbell'): Promise<boolean> {
  let rows: readonly unknown[];
  try {
    rows = await run(`SELECT jobq.${fn}() AS v`);
  } catch (err) {
    throw errorFromDb(err);
  }
  return (rows[0] as { v: boolean }).v === true;
}

/** A postgres.js sql with what awaitResult needs: listen, and a reserved connection. */
type PostgresJsListener = PostgresJsSql & {
  listen(channel: string, fn: (payload: string) => void): Promise<{ unlisten(): Promise<void> }>;
  reserve?(): Promise<PostgresJsSql & { release(): void }>;
};

/**
 * Waits until job jobId has ended (succeeded, dead or canceled) and returns its state and result; a
 * job that has ended already returns at once. It LISTENs on jobq_done first, then holds the done
 * doorbell (jobq.hold_done_doorbell: the engine notifies the end of a job only while some awaiter
 * holds it) and reads the job until no end that could have missed the doorbell is in flight
 * (jobq.done_quiet), then reads it again on each notification naming it (and every pollMs in any
 * case), so no wake-up is lost. The doorbell is let go and the LISTEN undone on every way out.
 * Throws AwaitTimeoutError after timeoutMs. db: a node-postgres Client (not inside a transaction,
 * where LISTEN waits for the commit), a Pool (a client of its own is taken and released), or a
 * postgres.js sql (its listen connection, and a connection reserved for the doorbell: postgres.js
 * 3.4 or later). The session must act for the job's store (app.current_store_id set on the
 * session, not SET LOCAL).
 */
export async function awaitResult<T = unknown>(
  db: PgListener | PgPool | PostgresJsSql,
  jobId: JobId,
  options: AwaitOptions,
): Promise<JobResult<T>> {
  const id = String(jobId);
  const deadline = Date.now() + options.timeoutMs;
  const pollMs = options.pollMs ?? 5000;
  let notified = false;
  let wake: (() => void) | undefined;
  let held = false;
  const onPayload = (payload: string | undefined) => {
    if (payload === id) {
      notified = true;
      wake?.();
    }
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      wake = undefined;
    });
  const loop = async (read: () => Promise<JobResult<T>>, run: Run): Promise<JobResult<T>> => {
    // Hold the doorbell, then read until no silent end is in flight: a job that ended before is
    // read here, one that ends after notifies.
    let r: JobResult<T>;
    for (let delay = doneRetryMinMs; ; delay = Math.min(2 * delay, doneRetryMaxMs)) {
      if (!held) {
        held = await askBool(run, 'hold_done_doorbell');
      }
      const quiet = held && (await askBool(run, 'done_quiet'));
      notified = false;
      r = await read();
      if (r.finishedAt !== null) {
        return r;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new AwaitTimeoutError(id, r.state, options.timeoutMs);
      }
      if (quiet) {
        break;
      }
      await new Promise<void>((resolve) => setTimeout(resolve, Math.min(delay, left)));
    }
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new AwaitTimeoutError(id, r.state, options.timeoutMs);
      }
      if (!notified) {
        await sleep(Math.min(pollMs, left));
      }
      notified = false;
      r = await read();
      if (r.finishedAt !== null) {
        return r;
      }
    }
  };

  if (typeof db === 'function') {
    const sql = db as PostgresJsListener;
    if (typeof sql.reserve !== 'function') {
      throw new TypeError('jobq: awaitResult needs postgres.js 3.4 or later (sql.reserve)');
    }
    const sub = await sql.listen(doneChannel, onPayload);
    let reserved: (PostgresJsSql & { release(): void }) | undefined;
    try {
      reserved = await sql.reserve();
      const session = reserved;
      return await loop(() => readResult<T>(session, id), async (text) => await session.unsafe(text));
    } finally {
      try {
        if (held && reserved) {
          await askBool(async (text) => await reserved!.unsafe(text), 'release_done_doorbell').catch(() => false);
        }
      } finally {
        reserved?.release();
        await sub.unlisten();
      }
    }
  }
  const pool = typeof (db as PgPool).connect === 'function' && typeof (db as PgPool).totalCount === 'number' ? (db as PgPool) : undefined;
  const client = (pool ? await pool.connect() : db) as PgListener & { release?: (err?: Error | boolean) => void };
  const onNotification = (n: { channel: string; payload?: string }) => {
    if (n.channel === doneChannel) {
      onPayload(n.payload);
    }
  };
  const run: Run = async (text) => (await client.query(text)).rows;
  client.on('notification', onNotification);
  let broken: Error | undefined;
  try {
    await client.query(`LISTEN ${doneChannel}`);
    return await loop(() => readResult<T>(client, id), run);
  } finally {
    client.removeListener('notification', onNotification);
    // A client that cannot let go of the doorbell or the LISTEN goes back to its pool broken (the
    // pool then closes it, and its session lock goes with it).
    if (held) {
      await client.query('SELECT jobq.release_done_doorbell()').catch((err: Error) => {
        broken = err;
      });
    }
    await client.query(`UNLISTEN ${doneChannel}`).catch((err: Error) => {
      broken ??= err;
    });
    if (pool) {
      client.release?.(broken ?? false);
    }
  }
}
