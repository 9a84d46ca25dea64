-- jobq schema, area 1: the core tables — settings, the error catalogue, live jobs, their history,
-- the task registry, the audit log — with their indexes, types and read grants.
--
-- Tables, indexes, types, grants and data change only through goose migrations, forward-only from
-- the first tagged release: a landed migration is never edited, a change is a new file. Functions,
-- views and policies are not here: they live one file per area in sql/functions/, which
-- `jobq migrate up` applies right after these steps (see sql/functions/README.md).
--
-- Runs as jobq_migrator, after bootstrap/ (which creates the roles this file grants to). The
-- schema itself is created by `jobq migrate` before goose runs, because goose keeps its version
-- table in it; the IF NOT EXISTS below lets a DBA apply this file by hand as well.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    v_missing text;
BEGIN
    SELECT string_agg(r.name, ', ' ORDER BY r.name) INTO v_missing
    FROM (VALUES ('jobq_migrator'), ('worker_runtime'), ('worker_fanout_owner'), ('jobq_app'), ('jobq_app_gate'), ('jobq_operator')) AS r(name)
    WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles p WHERE p.rolname = r.name);
    IF v_missing IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'JQ301',
            MESSAGE = format('JOB.BOOTSTRAP_MISSING: roles %s do not exist', v_missing),
            HINT = 'Apply bootstrap first (jobq bootstrap, or psql -f bootstrap/*.sql as a superuser), then run the migrations.';
    END IF;
END
$$;
-- +goose StatementEnd

CREATE SCHEMA IF NOT EXISTS jobq;
COMMENT ON SCHEMA jobq IS 'jobq: a PostgreSQL-native job queue. Owned by jobq_migrator; runtime roles use its functions only.';
REVOKE ALL ON SCHEMA jobq FROM PUBLIC;
GRANT USAGE ON SCHEMA jobq TO worker_runtime, jobq_app, jobq_operator;

-- Functions the migrator creates are not executable by PUBLIC: each public function is granted
-- to the roles that may call it, by name, in its area file. Doing this through default
-- privileges means there is never a moment in which a new function is open to PUBLIC.
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- Tunables read by the engine and the runners. Changed with jobq.set_setting(), which audits.
CREATE TABLE jobq.settings (
    name        text PRIMARY KEY,
    kind        text NOT NULL CHECK (kind IN ('interval', 'integer', 'boolean', 'text')),
    value       text NOT NULL,
    description text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE jobq.settings IS 'Tunables of the engine and the runners; change them with jobq.set_setting(name, value).';
INSERT INTO jobq.settings (name, kind, value, description) VALUES
    ('backoff_base', 'interval', '2 seconds', 'Backoff of the first retry; doubles each attempt (see jobq.backoff_delay).'),
    ('backoff_max', 'interval', '1 hour', 'Upper bound of the exponential backoff before jitter.'),
    ('default_lease', 'interval', '30 seconds', 'Lease a runner asks for when it claims, unless configured otherwise.'),
    ('default_max_attempts', 'integer', '25', 'max_attempts of a job whose enqueue and task name none.'),
    ('history_retention', 'interval', '7 days', 'How long finished jobs stay in jobq.job_history before jobq.prune_history() deletes them.'),
    ('leader_ttl', 'interval', '15 seconds', 'Lease of the leadership; the leader renews it every third of it.'),
    ('maintain_interval', 'interval', '1 second', 'How often the leader calls jobq.maintain.'),
    ('max_payload_bytes', 'integer', '1048576', 'Largest job payload accepted, in bytes of its jsonb form (pg_column_size); 1024 to 268435456.'),
    ('poll_interval', 'interval', '1 second', 'How often runners claim without a NOTIFY.'),
    ('wakeup', 'text', 'notify', 'How enqueue wakes runners when a job is due: notify (NOTIFY jobq), wal (a logical message for runners in WAL mode, no NOTIFY) or both.'),
    ('worker_heartbeat_interval', 'interval', '5 seconds', 'How often a runner heartbeats its jobq.workers row and reads the settings.'),
    ('worker_timeout', 'interval', '30 seconds', 'A worker whose heartbeat is older than this is marked lost; its leases are rescued.');

-- Every error jobq raises: stable code, SQLSTATE (class JQ), meaning and hint.
-- jobq._raise() reads it, the error table of the docs lists it, and a test keeps the two in step.
CREATE TABLE jobq.error_codes (
    code     text PRIMARY KEY CHECK (code ~ '^(JOB|WORKER)\.[A-Z_]+$'),
    sqlstate text NOT NULL UNIQUE CHECK (sqlstate ~ '^JQ[0-9A-Z]{3}$'),
    meaning  text NOT NULL,
    hint     text NOT NULL
);
COMMENT ON TABLE jobq.error_codes IS 'Catalogue of the errors jobq raises: code in the message, SQLSTATE, meaning and hint.';
INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.INVALID_ARGUMENT', 'JQ100', 'An argument is NULL, out of range or malformed.', 'Check the argument named in the message against the function''s documentation.'),
    ('JOB.TASK_REQUIRED', 'JQ101', 'The task name is NULL or empty.', 'Pass the task name as the first argument, e.g. jobq.enqueue(''ping'').'),
    ('JOB.PAYLOAD_NOT_OBJECT', 'JQ102', 'The payload is not a JSON object.', 'Pass a JSON object such as ''{"storeId": "..."}''::jsonb; wrap arrays and scalars in an object.'),
    ('JOB.UNKNOWN_JOB_KEY_MODE', 'JQ103', 'job_key_mode is not replace, preserve_run_at or unsafe_dedupe.', 'Use replace (default), preserve_run_at or unsafe_dedupe.'),
    ('JOB.MAX_ATTEMPTS_INVALID', 'JQ104', 'max_attempts is below 1 or above 1000.', 'Pass max_attempts between 1 and 1000, or NULL for the default.'),
    ('JOB.LEASE_INVALID', 'JQ105', 'A lease or delay is NULL, zero or negative.', 'Pass a positive interval such as ''30 seconds''.'),
    ('JOB.VALUE_TOO_LONG', 'JQ106', 'A text argument is longer than its documented limit.', 'Shorten the value the message names; the README''s Limits section lists every limit.'),
    ('JOB.OUT_OF_RANGE', 'JQ107', 'A number, interval, timestamp or array length is outside its documented range.', 'Pass a value within the range the message names; the README''s Limits section lists every range.'),
    ('JOB.PAYLOAD_TOO_LARGE', 'JQ108', 'The payload is larger than the setting max_payload_bytes.', 'Store large data elsewhere and pass a reference in the payload, or raise max_payload_bytes with jobq.set_setting.'),
    ('JOB.LEASE_LOST', 'JQ201', 'The job is not running under this lease token: it was rescued, canceled, finished or belongs to another claim.', 'Stop working on the job; another worker or an operator owns it now. Do not retry the write.'),
    ('JOB.NOT_FOUND', 'JQ202', 'No job has this id.', 'Look the job up in jobq.jobs and jobq.job_history; finished jobs are pruned after history_retention.'),
    ('JOB.STATE_CONFLICT', 'JQ203', 'The operation does not apply to the job in its current state.', 'Read the job''s state first; the message names it.'),
    ('JOB.UNKNOWN_SETTING', 'JQ204', 'No setting has this name, or the value does not parse as its kind.', 'SELECT name, kind FROM jobq.settings lists the settings and their kinds.'),
    ('JOB.BOOTSTRAP_MISSING', 'JQ301', 'The roles of bootstrap/ do not exist, so the migrations cannot grant to them.', 'Apply bootstrap first (jobq bootstrap, or psql -f bootstrap/*.sql as a superuser), then run the migrations.'),
    ('JOB.UNKNOWN_TASK', 'JQ401', 'No task of this name is declared in jobq.tasks.', 'Declare it first: SELECT jobq.define_task(''task-name'', ...); runners declare their typed tasks at start-up.'),
    ('JOB.PAYLOAD_INVALID', 'JQ402', 'The payload breaks the task''s contract: a required key is missing or a value has the wrong type.', 'Compare the payload with jobq.tasks.payload_schema of the task; the message names the key.'),
    ('JOB.STORE_REQUIRED', 'JQ403', 'A store-scoped task was enqueued without a store id.', 'Pass store_id (or a "storeId" in the payload), or use jobq.fan_out to enqueue it for every store.'),
    ('JOB.STORE_NOT_ALLOWED', 'JQ404', 'A system task was enqueued with a store id.', 'System tasks run across stores: pass no store_id; declare the task with scope store if it works on one store.'),
    ('JOB.INVALID_TASK_NAME', 'JQ405', 'The task name is not kebab-case (lowercase words joined by single hyphens, at most 100 characters).', 'Name tasks verb-noun in kebab-case, e.g. send-operator-invitation-email.'),
    ('JOB.TENANT_MISMATCH', 'JQ406', 'The job belongs to a store other than the session''s app.current_store_id.', 'Set app.current_store_id to the job''s store (SET LOCAL inside the transaction), or use jobq.fan_out for work across stores.'),
    ('JOB.NOT_ALLOWED', 'JQ407', 'The caller may not do this: an application enqueues only its store''s jobs and the system tasks declared app_enqueue, never gives a system job a job key, and nobody but the engine and operators writes a cron slot''s key (schedule:...).', 'Enqueue the work as a store task of the session''s store, or declare the system task with jobq.define_task(..., app_enqueue => true); leave schedule: keys to jobq.schedule.'),
    ('JOB.STORE_NOT_BOUND', 'JQ408', 'The login is bound to stores (jobq.store_bindings) and the session''s app.current_store_id is not one of them.', 'Connect with the login of that store, or have an operator run jobq.bind_store(login, store_id).'),
    ('WORKER.UNSAFE_ROLE', 'JQ501', 'The runner is connected as a superuser, a BYPASSRLS role, or the owner of the jobq schema (or a member of it).', 'Connect the runner as worker_runtime (WORKER_DATABASE_URL); the migrator''s URL is for migrations only.'),
    ('WORKER.NOT_READY', 'JQ502', 'The runner cannot reach the database.', 'Check WORKER_DATABASE_URL and that PostgreSQL accepts connections; /healthz stays 200 meanwhile.'),
    ('WORKER.SCHEMA_MISSING', 'JQ503', 'The jobq schema is not visible, or not at the version the runner expects.', 'Run jobq migrate up with the migrator''s URL; a runner older than the schema must be upgraded.'),
    ('JOB.INVALID_CRON', 'JQ601', 'The cron expression does not parse, or never fires.', 'Use 5 fields (minute hour day-of-month month day-of-week) with *, values, ranges a-b, steps /n, lists, JAN-DEC, SUN-SAT, or a macro such as @daily.'),
    ('JOB.INVALID_TIMEZONE', 'JQ602', 'The time zone is not known to PostgreSQL.', 'Use an IANA name such as UTC, Asia/Tokyo or America/New_York (SELECT name FROM pg_timezone_names).'),
    ('JOB.UNKNOWN_SCHEDULE', 'JQ603', 'No schedule has this name.', 'SELECT name FROM jobq.schedules lists them.'),
    ('JOB.UNKNOWN_WORKER', 'JQ605', 'No worker has this id.', 'SELECT id, state FROM jobq.workers lists them.');

-- A job to enqueue, as jobq.enqueue takes it and as one element of jobq.enqueue_many's JSON
-- array. NULL fields take their defaults (see jobq._enqueue).
CREATE TYPE jobq.job_spec AS (
    task         text,
    payload      jsonb,
    queue        text,
    run_at       timestamptz,
    priority     integer,
    max_attempts integer,
    job_key      text,
    job_key_mode text,
    store_id     uuid,
    timeout      interval,
    backoff_base interval,
    backoff_max  interval
);
COMMENT ON TYPE jobq.job_spec IS 'One job to enqueue; the fields of an element of jobq.enqueue_many''s JSON array.';

-- A parsed cron expression (jobq.cron_parse).
CREATE TYPE jobq.cron_fields AS (
    minutes integer[],
    hours   integer[],
    days    integer[],
    months  integer[],
    dows    integer[],
    any_day boolean,
    any_dow boolean
);
COMMENT ON TYPE jobq.cron_fields IS 'A parsed cron expression: the matching values of each field, and whether each day field is *.';

-- Live jobs: waiting (queued, retry_pending) and running. A job leaves this table when it ends.
CREATE TABLE jobq.jobs (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task             text NOT NULL CHECK (task <> ''),
    queue            text NOT NULL DEFAULT 'default' CHECK (queue <> ''),
    payload          jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(payload) = 'object'),
    store_id         uuid,
    priority         smallint NOT NULL DEFAULT 0,
    run_at           timestamptz NOT NULL DEFAULT now(),
    state            text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'retry_pending', 'running')),
    attempt          integer NOT NULL DEFAULT 0 CHECK (attempt >= 0),
    max_attempts     integer NOT NULL CHECK (max_attempts >= 1),
    job_key          text CHECK (job_key <> ''),
    job_key_mode     text CHECK (job_key_mode IN ('replace', 'preserve_run_at', 'unsafe_dedupe')),
    locked_by        text,
    lease_token      uuid,
    claimed_at       timestamptz,
    heartbeat_at     timestamptz,
    lease_expires_at timestamptz,
    timeout          interval CHECK (timeout > interval '0'),
    deadline_at      timestamptz,
    backoff_base     interval CHECK (backoff_base > interval '0'),
    backoff_max      interval CHECK (backoff_max > interval '0'),
    reason           text CHECK (reason IN ('error', 'timed_out', 'orphaned', 'not_retryable', 'exhausted', 'skipped', 'canceled', 'deleted', 'replaced', 'requeued')),
    last_error       text,
    error_code       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- A running job holds a lease; a waiting one holds none.
    CONSTRAINT jobs_lease_matches_state CHECK (
        (state = 'running') = (lease_token IS NOT NULL AND locked_by IS NOT NULL AND lease_expires_at IS NOT NULL)
    )
);
COMMENT ON TABLE jobq.jobs IS 'Live jobs (queued, retry_pending, running). Written only through jobq functions; finished jobs move to jobq.job_history.';
-- The claim path: waiting jobs of a queue in claim order.
CREATE INDEX jobs_claim_idx ON jobq.jobs (queue, priority, run_at, id) WHERE state IN ('queued', 'retry_pending');
-- The lease sweep: running jobs by lease expiry, and by deadline where they have a timeout.
CREATE INDEX jobs_lease_idx ON jobq.jobs (lease_expires_at) WHERE state = 'running';
CREATE INDEX jobs_deadline_idx ON jobq.jobs (deadline_at) WHERE state = 'running' AND deadline_at IS NOT NULL;
-- Heartbeats by worker.
CREATE INDEX jobs_locked_by_idx ON jobq.jobs (locked_by) WHERE state = 'running';
-- One live job per key and store. System jobs (no store) share the all-zero store id, so the
-- index works the same on PostgreSQL 13 and 14, which lack NULLS NOT DISTINCT.
CREATE UNIQUE INDEX jobs_job_key_idx
    ON jobq.jobs ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), job_key)
    WHERE job_key IS NOT NULL;

-- Finished jobs: succeeded, dead or canceled, kept for history_retention. Same columns as
-- jobq.jobs in the same order, then finished_at.
CREATE TABLE jobq.job_history (
    id               bigint PRIMARY KEY,
    task             text NOT NULL,
    queue            text NOT NULL,
    payload          jsonb NOT NULL,
    store_id         uuid,
    priority         smallint NOT NULL,
    run_at           timestamptz NOT NULL,
    state            text NOT NULL CHECK (state IN ('succeeded', 'dead', 'canceled')),
    attempt          integer NOT NULL,
    max_attempts     integer NOT NULL,
    job_key          text,
    job_key_mode     text,
    locked_by        text,
    lease_token      uuid,
    claimed_at       timestamptz,
    heartbeat_at     timestamptz,
    lease_expires_at timestamptz,
    timeout          interval,
    deadline_at      timestamptz,
    backoff_base     interval,
    backoff_max      interval,
    reason           text,
    last_error       text,
    error_code       text,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    finished_at      timestamptz NOT NULL
);
COMMENT ON TABLE jobq.job_history IS 'Finished jobs (succeeded, dead, canceled), kept for the history_retention setting.';
-- Retention: maintain reads min(finished_at) in O(log n) and prunes in finished_at order. (A BRIN
-- index served before 0.1: it was skipped without statistics; see docs/upgrading.md.)
CREATE INDEX job_history_finished_idx ON jobq.job_history (finished_at);
CREATE INDEX job_history_dead_idx ON jobq.job_history (task, finished_at) WHERE state = 'dead';

-- Every operator action: who (session_user), when, what, which job.
CREATE TABLE jobq.audit_log (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at      timestamptz NOT NULL DEFAULT now(),
    actor   text NOT NULL DEFAULT session_user,
    action  text NOT NULL,
    job_id  bigint,
    detail  jsonb NOT NULL DEFAULT '{}'
);
COMMENT ON TABLE jobq.audit_log IS 'Operator actions (retry, cancel, delete, requeue, settings): actor is session_user.';
CREATE INDEX audit_log_job_idx ON jobq.audit_log (job_id) WHERE job_id IS NOT NULL;

-- The task registry: every job names a declared task (jobq.define_task).
CREATE TABLE jobq.tasks (
    name           text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' AND length(name) <= 100),
    scope          text NOT NULL DEFAULT 'system' CHECK (scope IN ('system', 'store')),
    payload_schema jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(payload_schema) = 'object'),
    max_attempts   integer CHECK (max_attempts >= 1),
    queue          text CHECK (queue <> ''),
    priority       smallint,
    timeout        interval CHECK (timeout > interval '0'),
    backoff_base   interval CHECK (backoff_base > interval '0'),
    backoff_max    interval CHECK (backoff_max > interval '0'),
    description    text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    app_enqueue    boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE jobq.tasks IS 'The task registry: name (kebab-case), scope (system or store), payload contract and defaults. Written by jobq.define_task.';
COMMENT ON COLUMN jobq.tasks.app_enqueue IS
    'System tasks only: whether application logins (restricted callers of the gate functions) may enqueue it. Default false.';

-- Reading is allowed; writing goes through the functions only.
GRANT SELECT ON jobq.settings, jobq.error_codes TO worker_runtime, jobq_app, jobq_operator;
GRANT SELECT ON jobq.jobs, jobq.job_history TO jobq_app, jobq_operator;
GRANT SELECT ON jobq.audit_log TO jobq_operator;
GRANT SELECT ON jobq.tasks TO worker_runtime, jobq_app, jobq_operator;

-- Runners read goose's version table to refuse a schema newer or older than they know.
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('jobq.goose_db_version') IS NOT NULL THEN
        GRANT SELECT ON jobq.goose_db_version TO worker_runtime, jobq_app, jobq_operator;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- Every function of sql/functions/ goes too (they are not migrations; the next up applies them).
-- +goose StatementBegin
DO $$
DECLARE
    v_fn regprocedure;
BEGIN
    FOR v_fn IN SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'jobq'::regnamespace LOOP
        EXECUTE format('DROP FUNCTION %s', v_fn);
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP TABLE jobq.tasks;
DROP TABLE jobq.audit_log;
DROP TABLE jobq.job_history;
DROP TABLE jobq.jobs;
DROP TYPE jobq.cron_fields;
DROP TYPE jobq.job_spec;
DROP TABLE jobq.error_codes;
DROP TABLE jobq.settings;
ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO PUBLIC;
