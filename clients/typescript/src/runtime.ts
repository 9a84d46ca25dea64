// The runtime of jobq's TypeScript client: what the module of `jobq codegen typescript` (tasks.ts)
// calls. It runs jobq.enqueue over the driver the application already has (node-postgres or
// postgres.js), on the connection or transaction it is given; it opens no pool of its own and
// imports neither driver, so either may be absent. Hand-written; docs/clients.md.

/** A uuid as text: '5b0c1a7e-0000-4000-8000-000000000001'. jobq checks the digits at enqueue. */
export type Uuid = `${string}-${string}-${string}-${string}-${string}`;

/** A calendar day YYYY-MM-DD: '2026-05-05'. jobq refuses a day the calendar lacks (2026-02-29). */
export type IsoDate = `${number}-${number}-${number}`;

/** An ISO 8601 timestamp: '2026-05-05T03:00:00Z' (a Date is sent as its toISOString()). */
export type IsoTimestamp = `${number}-${number}-${number}T${string}` | `${number}-${number}-${number} ${string}`;

const uuidRE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isoDateRE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** s as a Uuid, for a string whose type is only string (read from a request, a row): throws a TypeError unless it is a uuid. */
export function asUuid(s: string): Uuid {
  if (!uuidRE.test(s)) {
    throw new TypeError(`jobq: ${JSON.stringify(s)} is not a uuid`);
  }
  return s as Uuid;
}

/** s as an IsoDate (YYYY-MM-DD): throws a TypeError unless it has that shape (jobq checks the calendar at enqueue). */
export function asIsoDate(s: string): IsoDate {
  if (!isoDateRE.test(s)) {
    throw new TypeError(`jobq: ${JSON.stringify(s)} is not a date YYYY-MM-DD`);
  }
  return s as IsoDate;
}

/** What a second enqueue with the same job key does (docs/job-lifecycle.md). */
export type JobKeyMode = 'replace' | 'preserve_run_at' | 'unsafe_dedupe';

/** What a dead or canceled parent does to its dependent job (docs/dependencies.md). */
export type OnParentFailure = 'cancel' | 'run';

/** What a job of a sequence dying does to the rest of its sequence (docs/dependencies.md). */
export type OnSequenceFailure = 'hold' | 'continue';

/** A job id as enqueueJob returns it (a string of digits), or as a number or a bigint. */
export type JobId = string | number | bigint;

/** The arguments of jobq.enqueue besides the task and payload; each left out takes jobq's default. */
export interface EnqueueOptions {
  jobKey?: string;
  jobKeyMode?: JobKeyMode;
  maxAttempts?: number;
  runAt?: Date | IsoTimestamp;
  queue?: string;
  priority?: number;
  /** An interval as PostgreSQL reads it: '5 minutes'. */
  timeout?: string;
  backoffBase?: string;
  backoffMax?: string;
  uniqueFor?: string;
  /**
   * The job's parents (depends_on): it waits, blocked, until every one succeeded. Ids of jobs of the
   * same store, live or finished; at most 10000; not with a jobKey. Default: none (an empty list is none).
   */
  dependsOn?: readonly JobId[];
  /** What a dead or canceled parent does to the job (on_parent_failure): 'cancel' (the default) cancels it too, 'run' runs it anyway. */
  onParentFailure?: OnParentFailure;
  /**
   * The job's sequence (sequence_key): it runs after every earlier job of its store and key, one at a
   * time in enqueue order. At most 500 characters, not blank; not with a jobKey. Default: none.
   */
  sequenceKey?: string;
  /** What the job dying does to its sequence (on_sequence_failure): 'hold' (the default) holds the next job, 'continue' releases it. */
  onSequenceFailure?: OnSequenceFailure;
}

/** A node-postgres Client, PoolClient or Pool: anything with query(text, values). */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A node-postgres Pool: withTenant takes a client of its own for the transaction. */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgQueryable & { release(err?: Error | boolean): void }>;
  readonly totalCount: number;
}

/** A postgres.js sql (or the sql of a sql.begin transaction): a function with unsafe(). */
export interface PostgresJsSql {
  unsafe(query: string, parameters?: any[]): PromiseLike<readonly unknown[]>;
  begin?(fn: (sql: any) => unknown): PromiseLike<unknown>;
}

/** The connection enqueueJob and withTenant run on. */
export type Db = PgQueryable | PostgresJsSql;

type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/**
 * The arguments after the task name: the payload, then the options. A system task refuses a store id;
 * a store task requires one, from the payload's storeId (required when its contract names it) or the
 * storeId option.
 */
export type EnqueueArgs<P, S> = [S] extends ['system']
  ? [payload: P, options?: EnqueueOptions & { storeId?: never }]
  : ['storeId'] extends [RequiredKeys<P>]
    ? [payload: P, options?: EnqueueOptions & { storeId?: Uuid }]
    :
        | [payload: P & { storeId: Uuid }, options?: EnqueueOptions & { storeId?: Uuid }]
        | [payload: P, options: EnqueueOptions & { storeId: Uuid }];

/** An error of jobq's catalogue (jobq.error_codes); the generated classes extend it. */
export class JobqError extends Error {
  /** The catalogued code, e.g. JOB.UNKNOWN_TASK. */
  readonly code: string;
  /** The SQLSTATE jobq raised it with (class JQ). */
  readonly sqlstate: string;
  readonly hint: string | undefined;

  constructor(code: string, sqlstate: string, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JobqError';
    this.code = code;
    this.sqlstate = sqlstate;
    this.hint = options?.hint;
  }
}

function isPostgresJs(db: Db): db is PostgresJsSql {
  return typeof db === 'function' && typeof (db as PostgresJsSql).unsafe === 'function';
}

function isPgPool(db: Db): db is PgPool {
  return !isPostgresJs(db) && typeof (db as PgPool).connect === 'function' && typeof (db as PgPool).totalCount === 'number';
}

/** Runs one parameterised statement on either driver and returns its rows. */
async function run(db: Db, text: string, values: unknown[]): Promise<readonly unknown[]> {
  if (isPostgresJs(db)) {
    return await db.unsafe(text, values as any[]);
  }
  if (typeof (db as PgQueryable).query === 'function') {
    return (await (db as PgQueryable).query(text, values)).rows;
  }
  throw new TypeError('jobq: db is neither a node-postgres Client, PoolClient or Pool nor a postgres.js sql');
}

// Each option and the jobq.enqueue argument it is, with its SQL type.
const optionArgs: ReadonlyArray<readonly [keyof EnqueueOptions | 'storeId', string, string]> = [
  ['runAt', 'run_at', 'timestamptz'],
  ['jobKey', 'job_key', 'text'],
  ['jobKeyMode', 'job_key_mode', 'text'],
  ['maxAttempts', 'max_attempts', 'integer'],
  ['priority', 'priority', 'integer'],
  ['queue', 'queue', 'text'],
  ['storeId', 'store_id', 'uuid'],
  ['timeout', 'timeout', 'interval'],
  ['backoffBase', 'backoff_base', 'interval'],
  ['backoffMax', 'backoff_max', 'interval'],
  ['uniqueFor', 'unique_for', 'interval'],
  ['dependsOn', 'depends_on', 'text::bigint[]'],
  ['onParentFailure', 'on_parent_failure', 'text'],
  ['sequenceKey', 'sequence_key', 'text'],
  ['onSequenceFailure', 'on_sequence_failure', 'text'],
];

const jobIdRE = /^-?[0-9]+$/;

/**
 * ids as the text of a bigint[] ('{12,13}'), the same over both drivers (each encodes a JS array its
 * own way); undefined for an empty list, which is no dependency. Throws a TypeError for anything
 * that is not a job id, before it could change the array's meaning ('1,2').
 */
function jobIdArray(ids: readonly JobId[]): string | undefined {
  if (!Array.isArray(ids)) {
    throw new TypeError(`jobq: dependsOn must be an array of job ids, not ${JSON.stringify(ids)}`);
  }
  const text = ids.map((id) => {
    const s = typeof id === 'number' ? (Number.isSafeInteger(id) ? String(id) : '') : typeof id === 'bigint' ? String(id) : id;
    if (typeof s !== 'string' || !jobIdRE.test(s)) {
      throw new TypeError(`jobq: dependsOn holds ${typeof id === 'bigint' ? String(id) : JSON.stringify(id)}, which is no job id`);
    }
    return s;
  });
  return text.length === 0 ? undefined : `{${text.join(',')}}`;
}

/**
 * The one implementation of enqueueJob: SELECT jobq.enqueue(task, payload, name => value, ...) with
 * the options given, as parameters. errorFromDb (generated) turns a driver's error into its class.
 */
export async function enqueueWith(
  db: Db,
  task: string,
  args: readonly unknown[],
  errorFromDb: (err: unknown) => unknown,
): Promise<string> {
  const [payload, options] = args as [unknown, (EnqueueOptions & { storeId?: string }) | undefined];
  const values: unknown[] = [task, JSON.stringify(payload ?? {})];
  // The payload goes as text: postgres.js would encode a string parameter of type jsonb as JSON again.
  let sql = 'SELECT jobq.enqueue($1, $2::text::jsonb';
  for (const [option, arg, type] of optionArgs) {
    const given = options?.[option];
    const v = option === 'dependsOn' && given !== undefined && given !== null ? jobIdArray(given as readonly JobId[]) : given;
    if (v === undefined || v === null) {
      continue;
    }
    values.push(v instanceof Date ? v.toISOString() : v);
    sql += `, ${arg} => $${values.length}::${type}`;
  }
  sql += ')::text AS id';
  let rows: readonly unknown[];
  try {
    rows = await run(db, sql, values);
  } catch (err) {
    throw errorFromDb(err);
  }
  return (rows[0] as { id: string }).id;
}

/**
 * Makes storeId the tenant of the transaction db is in: set_config('app.current_store_id', storeId,
 * true), which is SET LOCAL (it ends with the transaction). Call it inside your own transaction.
 */
export async function setTenant(db: Db, storeId: Uuid): Promise<void> {
  await run(db, "SELECT set_config('app.current_store_id', $1::uuid::text, true)", [storeId]);
}

/**
 * Runs fn in a transaction whose tenant is storeId (setTenant), committing when fn resolves and
 * rolling back when it rejects; resolves to fn's result. db: a node-postgres Client or PoolClient
 * (BEGIN ... COMMIT on it; it must not be in a transaction already), a Pool (on a client of its own,
 * released afterwards), or a postgres.js sql (sql.begin). fn gets the transaction's connection:
 * enqueue on that one.
 */
export async function withTenant<T>(db: PgQueryable, storeId: Uuid, fn: (tx: PgQueryable) => Promise<T>): Promise<T>;
export async function withTenant<T>(db: PostgresJsSql, storeId: Uuid, fn: (tx: PostgresJsSql) => Promise<T>): Promise<T>;
export async function withTenant<T>(db: Db, storeId: Uuid, fn: (tx: any) => Promise<T>): Promise<T> {
  if (isPostgresJs(db)) {
    if (typeof db.begin !== 'function') {
      throw new TypeError('jobq: withTenant needs the top-level postgres.js sql (sql.begin); inside a transaction, call setTenant');
    }
    return (await db.begin(async (tx: PostgresJsSql) => {
      await setTenant(tx, storeId);
      return await fn(tx);
    })) as T;
  }
  if (isPgPool(db)) {
    const client = await db.connect();
    try {
      return await withTenant(client, storeId, fn);
    } finally {
      client.release();
    }
  }
  const client = db as PgQueryable;
  await client.query('BEGIN');
  try {
    await setTenant(client, storeId);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
