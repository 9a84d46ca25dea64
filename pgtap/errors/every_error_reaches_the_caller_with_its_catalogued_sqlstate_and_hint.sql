-- One trigger per catalogued error: the caller sees the catalogued SQLSTATE, a message starting
-- with the code, and the catalogued HINT.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store', payload_schema => '{"n": "integer"}');
-- A login bound to store 1111…, for JOB.STORE_NOT_BOUND (created and dropped with the transaction).
CREATE ROLE pgtap_bound_login LOGIN IN ROLE jobq_app;
SELECT jobq.bind_store('pgtap_bound_login', '11111111-1111-1111-1111-111111111111');
-- A schedule under forbid whose run is live, for JOB.SCHEDULE_OVERLAP.
SELECT FROM jobq.schedule('pgtap-forbid', '0 3 * * *', 't', queue => 'q3', concurrency_policy => 'forbid');
SELECT FROM jobq.run_schedule_now('pgtap-forbid');
-- A sealed batch, for JOB.BATCH_SEALED.
SELECT FROM jobq.seal_batch(jobq.create_batch());

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id, jobq.enqueue('t', queue => 'q2') AS done;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q', 'q2'], 2);
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT done FROM job), (SELECT lease_token FROM c WHERE queue = 'q2')),
                'setup: one running job and one succeeded job');

CREATE TEMP TABLE triggers (code text, sql text);
INSERT INTO triggers VALUES
    ('JOB.INVALID_ARGUMENT',     $$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 0) $$),
    ('JOB.TASK_REQUIRED',        $$ SELECT jobq.enqueue(NULL) $$),
    ('JOB.PAYLOAD_NOT_OBJECT',   $$ SELECT jobq.enqueue('t', '"x"') $$),
    ('JOB.UNKNOWN_JOB_KEY_MODE', $$ SELECT jobq.enqueue('t', job_key => 'k', job_key_mode => 'upsert') $$),
    ('JOB.MAX_ATTEMPTS_INVALID', $$ SELECT jobq.enqueue('t', max_attempts => -1) $$),
    ('JOB.LEASE_INVALID',        $$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '-5 seconds') $$),
    ('JOB.LEASE_LOST',           format('SELECT jobq.complete_job(%s, gen_random_uuid())', (SELECT id FROM job))),
    ('JOB.NOT_FOUND',            format('SELECT jobq.cancel_job(%s)', (SELECT done FROM job) + 1000000)),
    ('JOB.STATE_CONFLICT',       format('SELECT jobq.retry_job(%s)', (SELECT done FROM job))),
    ('JOB.UNKNOWN_SETTING',      $$ SELECT jobq.set_setting('nope', '1') $$),
    ('JOB.UNKNOWN_TASK',         $$ SELECT jobq.enqueue('pgtap-undeclared-task') $$),
    ('JOB.PAYLOAD_INVALID',      $$ SELECT jobq.enqueue('pgtap-store-task', '{"n": "x"}', store_id => '11111111-1111-1111-1111-111111111111') $$),
    ('JOB.STORE_REQUIRED',       $$ SELECT jobq.enqueue('pgtap-store-task', '{"n": 1}') $$),
    ('JOB.STORE_NOT_ALLOWED',    $$ SELECT jobq.enqueue('t', store_id => '11111111-1111-1111-1111-111111111111') $$),
    ('JOB.INVALID_TASK_NAME',    $$ SELECT jobq.define_task('Bad_Name') $$),
    -- A superuser has jobq_operator's rights and reaches every store: the mismatch needs jobq_app
    -- (the SET LOCAL ROLE ends with the subtransaction the error rolls back).
    ('JOB.TENANT_MISMATCH',      $$ SET LOCAL ROLE jobq_app;
                                    SELECT jobq.enqueue('pgtap-store-task', '{"n": 1}', store_id => '11111111-1111-1111-1111-111111111111') $$),
    -- An application may not enqueue a system task that is not declared app_enqueue.
    ('JOB.NOT_ALLOWED',          $$ SET LOCAL ROLE jobq_app;
                                    SELECT jobq.enqueue('t') $$),
    -- A login bound to store 1111… that names store 2222…
    ('JOB.STORE_NOT_BOUND',      $$ SET LOCAL SESSION AUTHORIZATION pgtap_bound_login;
                                    SET LOCAL app.current_store_id = '22222222-2222-2222-2222-222222222222';
                                    SELECT jobq.enqueue('pgtap-store-task', '{"n": 1}', store_id => '22222222-2222-2222-2222-222222222222') $$),
    ('JOB.INVALID_CRON',         $$ SELECT jobq.cron_parse('61 * * * *') $$),
    ('JOB.INVALID_TIMEZONE',     $$ SELECT jobq.cron_next('@daily', now(), 'Mars/Olympus_Mons') $$),
    ('JOB.UNKNOWN_SCHEDULE',     $$ SELECT jobq.unschedule('pgtap-no-such-schedule') $$),
    ('JOB.SCHEDULE_OVERLAP',     $$ SELECT jobq.run_schedule_now('pgtap-forbid') $$),
    ('JOB.UNKNOWN_WORKER',       $$ SELECT * FROM jobq.worker_heartbeat('pgtap-no-such-worker') $$),
    ('JOB.BATCH_NOT_FOUND',      $$ SELECT jobq.seal_batch(-1) $$),
    ('JOB.BATCH_SEALED',         $$ SELECT jobq.batch_enqueue((SELECT min(id) FROM jobq.batches), '[]') $$),
    ('JOB.BATCH_CALLBACK_INVALID', $$ SELECT jobq.create_batch(on_success => '{"task": "pgtap-no-such-task"}') $$),
    -- A store's job added to a system batch.
    ('JOB.BATCH_STORE_MISMATCH', $$ SELECT jobq.batch_enqueue(jobq.create_batch(), '[{"task": "pgtap-store-task", "payload": {"n": 1}, "store_id": "11111111-1111-1111-1111-111111111111"}]') $$),
    ('JOB.VALUE_TOO_LONG',       $$ SELECT * FROM jobq.claim_job('w', ARRAY[repeat('q', 201)]) $$),
    ('JOB.OUT_OF_RANGE',         $$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '2 days') $$),
    ('JOB.PAYLOAD_TOO_LARGE',    $$ SELECT jobq.enqueue('t', jsonb_build_object('x', repeat('x', 2000000)), job_key => 'big') $$),
    -- A result above max_result_bytes (65536 bytes as JSON text) for the job still running in q.
    ('JOB.RESULT_TOO_LARGE',     format('SELECT jobq.complete_job(%s, %L, to_jsonb(repeat(''x'', 70000)))',
                                        (SELECT id FROM job), (SELECT lease_token FROM c WHERE queue = 'q'))),
    ('JOB.DEPENDENCY_NOT_FOUND', $$ SELECT jobq.enqueue('t', depends_on => ARRAY[999999999]::bigint[]) $$),
    ('JOB.DEPENDENCY_CYCLE',     $$ SELECT * FROM jobq.enqueue_many('[{"task": "t", "ref": "a", "depends_on_refs": ["a"]}]') $$),
    ('JOB.TOO_MANY_DEPENDENCIES', format('SELECT jobq.enqueue(''t'', depends_on => array_fill(%s::bigint, ARRAY[10001]))', (SELECT id FROM job))),
    ('JOB.WORKFLOW_KEYED',       $$ SELECT jobq.enqueue('t', job_key => 'k', sequence_key => 's') $$),
    ('JOB.UNKNOWN_REF',          $$ SELECT * FROM jobq.enqueue_many('[{"task": "t", "depends_on_refs": ["nope"]}]') $$);

SELECT results_eq(
    $$ SELECT t.code, e.err_state, split_part(e.err_message, ':', 1), e.err_hint
       FROM triggers t CROSS JOIN LATERAL jobq_test.error_fields(t.sql) AS e ORDER BY t.code $$,
    -- JOB.CLAIM_ISOLATION needs a REPEATABLE READ transaction, which this file is not: its trigger
    -- is pgtap/claim_job/refuses_a_claim_under_repeatable_read_or_serializable_and_claims_nothing.sql.
    -- JOB.BOOTSTRAP_MISSING and JOB.ALREADY_INSTALLED are the installers' (migrate/install_test.go).
    $$ SELECT code, sqlstate, code, hint FROM jobq.error_codes
       WHERE code NOT IN ('JOB.BOOTSTRAP_MISSING', 'JOB.ALREADY_INSTALLED', 'JOB.CLAIM_ISOLATION') AND code NOT LIKE 'WORKER.%' ORDER BY code $$,
    'each catalogued error reaches the caller with its SQLSTATE, its code at the start of the message, and its hint');

SELECT * FROM finish();
ROLLBACK;
