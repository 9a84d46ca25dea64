// Results and waiting for them (docs/results.md): jobResult reads jobq.job_result, awaitResult
// waits for a job to end on the channel jobq_done, whose notifications carry only the job's id.
// Hand-written; it runs over the application's own driver like the rest of the client.
import type { PgPool, PgQueryable, PostgresJsSql } from './runtime.js';
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
export async function jobResult<T = unknown>(db: PgQueryable | PostgresJsSql, jobId: string | number | bigint): Promise<JobResult<T>> {
  return readResult<T>(db, String(jobId));
}

/**
 * Waits until job jobId has ended (succeeded, dead or canceled) and returns its state and result; a
 * job that has ended already returns at once. It LISTENs on jobq_done first, then reads the job, then
 * reads it again on each notification naming it (and every pollMs in any case), so no wake-up is lost.
 * Throws AwaitTimeoutError after timeoutMs. db: a node-postgres Client (not inside a transaction,
 * where LISTEN waits for the commit), a Pool (a client of its own is taken and released), or a
 * postgres.js sql (its listen connection). The session must act for the job's store
 * (app.current_store_id set on the session, not SET LOCAL).
 */
export async function awaitResult<T = unknown>(
  db: PgListener | PgPool | PostgresJsSql,
  jobId: string | number | bigint,
  options: AwaitOptions,
): Promise<JobResult<T>> {
  const id = String(jobId);
  const deadline = Date.now() + options.timeoutMs;
  const pollMs = options.pollMs ?? 5000;
  let notified = false;
  let wake: (() => void) | undefined;
  const onPayload = (payload: string | undefined) => {
    if (payload === id) {
      notified = true;
      wake?.();
    }
  };
  const loop = async (read: () => Promise<JobResult<T>>): Promise<JobResult<T>> => {
    for (;;) {
      notified = false;
      const r = await read();
      if (r.finishedAt !== null) {
        return r;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new AwaitTimeoutError(id, r.state, options.timeoutMs);
      }
      if (!notified) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(pollMs, left));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  };

  if (typeof db === 'function') {
    const sql = db as PostgresJsSql & { listen(channel: string, fn: (payload: string) => void): Promise<{ unlisten(): Promise<void> }> };
    const sub = await sql.listen(doneChannel, onPayload);
    try {
      return await loop(() => readResult<T>(sql, id));
    } finally {
      await sub.unlisten();
    }
  }
  const pool = typeof (db as PgPool).connect === 'function' && typeof (db as PgPool).totalCount === 'number' ? (db as PgPool) : undefined;
  const client = (pool ? await pool.connect() : db) as PgListener & { release?: (err?: Error | boolean) => void };
  const onNotification = (n: { channel: string; payload?: string }) => {
    if (n.channel === doneChannel) {
      onPayload(n.payload);
    }
  };
  client.on('notification', onNotification);
  let broken: Error | undefined;
  try {
    await client.query(`LISTEN ${doneChannel}`);
    return await loop(() => readResult<T>(client, id));
  } finally {
    client.removeListener('notification', onNotification);
    await client.query(`UNLISTEN ${doneChannel}`).catch((err: Error) => {
      broken = err;
    });
    if (pool) {
      client.release?.(broken ?? false);
    }
  }
}
