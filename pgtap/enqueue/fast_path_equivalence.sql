-- A keyless job that passes every check skips jobq._enqueue (00019): enqueue and enqueue_many
-- insert it directly. The job must be exactly the one jobq._enqueue, the general path, writes for
-- the same input, and input the general path refuses must still be refused by it, with the same
-- error, writing nothing. Each input below goes through both paths; the rows are compared column
-- by column, but for id and the two timestamps of the row's own insert.
BEGIN;
SELECT plan(13);

SELECT jobq_test.reset();
-- A task without defaults, one with every default, one whose queue is blank (refused once resolved)
-- (system tasks that applications may enqueue: the inputs are enqueued as jobq_app too),
-- and a store task with a payload contract.
SELECT FROM jobq.define_task('pgtap-eq-plain', app_enqueue => true);
SELECT FROM jobq.define_task('pgtap-eq-defaults', max_attempts => 4, queue => 'eq-task-queue', priority => 2,
                             timeout => '5 minutes', backoff_base => '3 seconds', backoff_max => '7 minutes', app_enqueue => true);
SELECT FROM jobq.define_task('pgtap-eq-blank-queue', queue => '  ', app_enqueue => true);
SELECT FROM jobq.define_task('pgtap-eq-store', scope => 'store', payload_schema => '{"storeId": "uuid", "n": "integer", "note?": "string"}');

-- The inputs: the arguments of enqueue, as the specs jobq._enqueue takes.
CREATE TEMP TABLE input (pos integer PRIMARY KEY, spec jobq.job_spec);
INSERT INTO input VALUES
    (1, ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (2, ROW('  pgtap-eq-plain  ', '{"a": [1, 2]}', 'eq-queue', now() + interval '1 hour', -7, 3, NULL, NULL, NULL,
            '1 minute', '4 seconds', '9 minutes', NULL)),
    (3, ROW('pgtap-eq-defaults', '{}', NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (4, ROW('pgtap-eq-defaults', '{"x": true}', 'eq-own-queue', now() - interval '1 minute', 32767, 1, NULL, 'replace', NULL,
            '10 seconds', '1 second', '1 second', NULL)),
    (5, ROW('pgtap-eq-store', '{"storeId": "11111111-1111-1111-1111-111111111111", "n": 1}', NULL, NULL, NULL, NULL, NULL,
            'replace', NULL, NULL, NULL, NULL, NULL)),
    (6, ROW('pgtap-eq-store', '{"storeId": "11111111-1111-1111-1111-111111111111", "n": 2, "note": null}', NULL,
            now() + interval '1 day', -32768, NULL, NULL, 'replace', '11111111-1111-1111-1111-111111111111', NULL, NULL, NULL, NULL)),
    (7, ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));

SELECT is((SELECT count(*) FROM input i JOIN jobq.tasks t ON t.name = btrim((i.spec).task)
           WHERE jobq._enqueue_takes_fast_path(i.spec, t)), 7::bigint,
          'setup: every input takes the fast path');

-- The rows a job id stands for, without what differs between two inserts of one input.
CREATE FUNCTION pg_temp.job_row(p_id bigint) RETURNS jsonb LANGUAGE sql AS $$
    SELECT to_jsonb(j) - 'id' - 'created_at' - 'updated_at' FROM jobq.jobs j WHERE j.id = p_id
$$;

-- The general path first, as the reference.
CREATE TEMP TABLE reference AS
SELECT i.pos, pg_temp.job_row(e.job_id) AS job
FROM input i CROSS JOIN LATERAL jobq._enqueue(ARRAY[i.spec], false) AS e;
SELECT is((SELECT count(*) FROM reference WHERE job IS NOT NULL), 7::bigint, 'setup: the general path enqueued every input');

-- enqueue, as an application of store 1111… (the store inputs need the tenant), and as an operator.
GRANT SELECT ON input TO jobq_app;
SET LOCAL ROLE jobq_app;
SELECT FROM set_config('app.current_store_id', '11111111-1111-1111-1111-111111111111', true);
CREATE TEMP TABLE fast AS
SELECT i.pos, jobq.enqueue((i.spec).task, (i.spec).payload, (i.spec).run_at, (i.spec).job_key, (i.spec).job_key_mode,
                           (i.spec).max_attempts, (i.spec).priority, (i.spec).queue, (i.spec).store_id, (i.spec).timeout,
                           (i.spec).backoff_base, (i.spec).backoff_max) AS id
FROM input i ORDER BY i.pos;
RESET ROLE;
SELECT FROM set_config('app.current_store_id', '', true);

SELECT results_eq(
    $$ SELECT f.pos, pg_temp.job_row(f.id) FROM fast f WHERE f.pos IN (1, 7) ORDER BY f.pos $$,
    $$ SELECT r.pos, r.job FROM reference r WHERE r.pos IN (1, 7) ORDER BY r.pos $$,
    'enqueue of a bare task writes the job the general path writes: the global defaults (queue default, priority 0, '
    'max_attempts 25, run_at now, payload {})');
SELECT results_eq(
    $$ SELECT f.pos, pg_temp.job_row(f.id) FROM fast f WHERE f.pos = 2 $$,
    $$ SELECT r.pos, r.job FROM reference r WHERE r.pos = 2 $$,
    'enqueue with every option (task trimmed, run_at in the future, priority, queue, limits) writes the same job');
SELECT results_eq(
    $$ SELECT f.pos, pg_temp.job_row(f.id) FROM fast f WHERE f.pos IN (3, 4) ORDER BY f.pos $$,
    $$ SELECT r.pos, r.job FROM reference r WHERE r.pos IN (3, 4) ORDER BY r.pos $$,
    'the task''s defaults apply, and the enqueue''s own values win over them, as on the general path');
SELECT results_eq(
    $$ SELECT f.pos, pg_temp.job_row(f.id) FROM fast f WHERE f.pos IN (5, 6) ORDER BY f.pos $$,
    $$ SELECT r.pos, r.job FROM reference r WHERE r.pos IN (5, 6) ORDER BY r.pos $$,
    'a store task enqueued by an application of that store gets the same job: store id from the payload or given, contract kept');

-- enqueue_many of all inputs at once, against the general path with positions.
CREATE TEMP TABLE many AS
SELECT row_number() OVER () AS pos, m.id
FROM jobq.enqueue_many((SELECT jsonb_agg(to_jsonb(i.spec) ORDER BY i.pos) FROM input i)) AS m(id);
CREATE TEMP TABLE many_reference AS
SELECT e.ord AS pos, e.job_id AS id FROM jobq._enqueue(ARRAY(SELECT i.spec FROM input i ORDER BY i.pos), true) AS e;
SELECT results_eq(
    $$ SELECT m.pos, pg_temp.job_row(m.id) FROM many m ORDER BY m.pos $$,
    $$ SELECT r.pos, pg_temp.job_row(r.id) FROM many_reference r ORDER BY r.pos $$,
    'enqueue_many writes, element by element, the jobs the general path writes for the same array');
SELECT ok((SELECT bool_and(a.id < b.id) FROM many a JOIN many b ON b.pos = a.pos + 1),
          'enqueue_many draws the ids in input order');

-- What the fast path does not take goes through the general path: keys, and every refusal.
SELECT ok(NOT jobq._enqueue_takes_fast_path(ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, 'k', 'replace', NULL, NULL, NULL, NULL, NULL),
                                            (SELECT t FROM jobq.tasks t WHERE t.name = 'pgtap-eq-plain')),
          'a keyed job does not take the fast path');

CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;
CREATE TEMP TABLE refused (spec jobq.job_spec);
INSERT INTO refused VALUES
    (ROW(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', '[1]', NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, 'upsert', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, 0, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, ' ', NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, 40000, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', NULL, '0', NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, '-1 second', NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', '00000000-0000-0000-0000-000000000000', NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-blank-queue', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-undeclared', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', '11111111-1111-1111-1111-111111111111', NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-store', '{"n": 1}', NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-store', '{"storeId": "11111111-1111-1111-1111-111111111111", "n": "one"}', NULL, NULL, NULL, NULL, NULL,
         'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-store', '{"storeId": "11111111-1111-1111-1111-111111111111", "n": 1}', NULL, NULL, NULL, NULL, NULL,
         'replace', '22222222-2222-2222-2222-222222222222', NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-store', '{"storeId": "00000000-0000-0000-0000-000000000000", "n": 1}', NULL, NULL, NULL, NULL, NULL,
         'replace', NULL, NULL, NULL, NULL, NULL)),
    -- Out of the domains of 00023: timeout, backoff, run_at, queue length, max_attempts, payload size.
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', NULL, '1000000 years', NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, '31 days', NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, '1 hour')),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, NULL, 'k', 'replace', NULL, NULL, NULL, NULL, '366 days')),
    (ROW('pgtap-eq-plain', NULL, NULL, '-infinity', NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, repeat('q', 201), NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', NULL, NULL, NULL, NULL, 1001, NULL, 'replace', NULL, NULL, NULL, NULL, NULL)),
    (ROW('pgtap-eq-plain', jsonb_build_object('blob', (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 40000) AS g)),
         NULL, NULL, NULL, NULL, NULL, 'replace', NULL, NULL, NULL, NULL, NULL));
SELECT is_empty(
    $$ SELECT r.spec, jobq_test.error_of(format('SELECT jobq.enqueue(%L, %L, %L, %L, %L, %L, %L, %L, %L, %L, %L, %L, %L)',
                                              (r.spec).task, (r.spec).payload, (r.spec).run_at, (r.spec).job_key, (r.spec).job_key_mode,
                                              (r.spec).max_attempts, (r.spec).priority, (r.spec).queue, (r.spec).store_id,
                                              (r.spec).timeout, (r.spec).backoff_base, (r.spec).backoff_max, (r.spec).unique_for)) AS fast,
              jobq_test.error_of(format('SELECT * FROM jobq._enqueue(ARRAY[%L::jobq.job_spec], false)', r.spec)) AS general
       FROM refused r
       WHERE jobq_test.error_of(format('SELECT jobq.enqueue(%L, %L, %L, %L, %L, %L, %L, %L, %L, %L, %L, %L, %L)',
                                     (r.spec).task, (r.spec).payload, (r.spec).run_at, (r.spec).job_key, (r.spec).job_key_mode,
                                     (r.spec).max_attempts, (r.spec).priority, (r.spec).queue, (r.spec).store_id,
                                     (r.spec).timeout, (r.spec).backoff_base, (r.spec).backoff_max, (r.spec).unique_for))
             IS DISTINCT FROM jobq_test.error_of(format('SELECT * FROM jobq._enqueue(ARRAY[%L::jobq.job_spec], false)', r.spec))
          OR jobq_test.error_of(format('SELECT * FROM jobq._enqueue(ARRAY[%L::jobq.job_spec], false)', r.spec)) NOT LIKE 'JQ%' $$,
    'enqueue refuses every input the general path refuses (each check of validation, the registry and the resolved '
    'spec) with the same SQLSTATE and message');
SELECT is(jobq_test.error_of($$ SET LOCAL ROLE jobq_app;
                              SELECT jobq.enqueue('pgtap-eq-store', '{"storeId": "22222222-2222-2222-2222-222222222222", "n": 1}') $$),
          'JQ406 JOB.TENANT_MISMATCH: store 22222222-2222-2222-2222-222222222222 is not this session''s store (app.current_store_id = unset)',
          'an application enqueueing a store job outside that store is refused with JQ406, as on the general path');
SELECT is(jobq_test.error_of($$ SELECT FROM jobq.define_task('pgtap-eq-internal');
                              SET LOCAL ROLE jobq_app;
                              SELECT jobq.enqueue('pgtap-eq-internal') $$),
          'JQ407 JOB.NOT_ALLOWED: task pgtap-eq-internal is a system task that applications may not enqueue (declare it with app_enqueue => true to allow it)',
          'an application enqueueing a system task not declared app_enqueue is refused with JQ407, as on the general path');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'none of the refused enqueues wrote a job');

SELECT * FROM finish();
ROLLBACK;
