-- The fixtures every suite starts from (pgtap/jobq_test.pgsql) do what they promise: reset() leaves
-- no job, history, schedule, run, worker, binding, audit row or test task, the leader row as the
-- migration inserts it and every setting at its migration default; stores(), tasks() and
-- tenant_jobs() build exactly what they are given; error_of() and error_fields() report an error.
BEGIN;
SELECT plan(11);

-- Something in every table reset() covers, and two settings changed.
SELECT jobq_test.tasks('pgtap-dirty');
SELECT jobq.enqueue('pgtap-dirty', queue => 'pgtap_q');
SELECT jobq.cancel_job(jobq.enqueue('pgtap-dirty', queue => 'pgtap_q'));
SELECT FROM jobq.schedule('pgtap-dirty', '* * * * *', 'pgtap-dirty');
SELECT FROM jobq._enqueue_due_slots(now() + interval '2 minutes');
SELECT FROM jobq.register_worker('pgtap-w', 'node', 1, ARRAY['pgtap_q'], 1);
SELECT jobq.acquire_leadership('pgtap-w');
SELECT jobq.set_setting('backoff_base', '9 seconds'), jobq.set_setting('default_max_attempts', '3');
CREATE ROLE pgtap_fixture_login LOGIN IN ROLE jobq_app;
SELECT jobq.bind_store('pgtap_fixture_login', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');

SELECT jobq_test.reset();

SELECT results_eq(
    $$ SELECT c.jobs, c.history, c.workers, c.schedules, c.audits, (SELECT count(*) FROM jobq.schedule_runs),
              (SELECT count(*) FROM jobq.store_bindings), (SELECT count(*) FROM jobq.tasks t WHERE t.name LIKE 'pgtap-%')
       FROM jobq_test.counts() c $$,
    $$ VALUES (0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint) $$,
    'reset leaves no job, history, worker, schedule, audit row, schedule run, binding or test task');
SELECT results_eq($$ SELECT holder, epoch, acquired_at, lease_expires_at FROM jobq.leader $$,
                  $$ VALUES (NULL::text, 0::bigint, NULL::timestamptz, NULL::timestamptz) $$,
                  'reset leaves one leader row, nobody leading at epoch 0');
SELECT set_eq($$ SELECT name, value FROM jobq.settings $$, $$ SELECT name, value FROM jobq_test.setting_defaults $$,
              'reset puts every setting back to the value the migrations left');
SELECT results_eq($$ SELECT value FROM jobq.settings WHERE name IN ('backoff_base', 'default_max_attempts') ORDER BY name $$,
                  $$ VALUES ('2 seconds'), ('25') $$, 'among them the two changed ones, at their migration defaults');

SELECT jobq_test.stores('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
SELECT results_eq($$ SELECT id FROM public.store ORDER BY ctid $$,
                  $$ VALUES ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'::uuid), ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
                  'stores(...) leaves exactly the stores given, inserted in the order given');
SELECT jobq_test.stores();
SELECT is_empty($$ SELECT 1 FROM public.store $$, 'stores() leaves none');

SELECT jobq_test.tasks('pgtap-b', 'pgtap-a');
SELECT results_eq($$ SELECT name, scope, payload_schema, app_enqueue FROM jobq.tasks ORDER BY name $$,
                  $$ VALUES ('pgtap-a'::text, 'system'::text, '{}'::jsonb, false), ('pgtap-b', 'system', '{}', false) $$,
                  'tasks(...) declares each name as a plain system task');

SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT jobq_test.tasks('pgtap-system-task');
SELECT jobq_test.tenant_jobs();
SELECT results_eq(
    $$ SELECT n.name, j.store_id, j.queue FROM named n JOIN jobq.jobs j ON j.id = n.id ORDER BY n.name $$,
    $$ VALUES ('a_done'::text, 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid, 'pgtap_done'::text),
              ('a_live', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'pgtap_a'),
              ('b_done', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'pgtap_done'),
              ('b_live', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'pgtap_b'),
              ('system_done', NULL, 'pgtap_done'), ('system_live', NULL, 'pgtap_system') $$,
    'tenant_jobs() enqueues two jobs in store A, in store B and in the system, named in temp table named');

SELECT is(jobq_test.error_of('SELECT 1 / 0'), '22012 division by zero', 'error_of gives the SQLSTATE and the message');
SELECT is(jobq_test.error_of('SELECT 1'), 'no error', 'error_of says when nothing is raised');
SELECT results_eq(
    $$ SELECT err_state, err_hint FROM jobq_test.error_fields($q$ SELECT jobq.set_setting('pgtap-nope', '1') $q$) $$,
    $$ SELECT sqlstate, hint FROM jobq.error_codes WHERE code = 'JOB.UNKNOWN_SETTING' $$,
    'error_fields gives the SQLSTATE and the hint of the error raised');

SELECT * FROM finish();
ROLLBACK;
