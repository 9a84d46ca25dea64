-- Who sees what in jobq.stats(): an operator counts every store and the system (store_id NULL in
-- the result) or one store it names; an application counts only its session's store, never a
-- system job, and nothing when it has no store; worker_runtime and PUBLIC may not call it.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT jobq_test.tasks('pgtap-system-task');
SELECT jobq_test.tenant_jobs();
-- The three finished jobs (one each of A, B and the system, all in queue pgtap_done) count as dead.
SELECT is((SELECT count(*) FROM named n CROSS JOIN LATERAL jobq.cancel_job(n.id) AS c WHERE n.name LIKE '%\_done'),
          3::bigint, 'setup: a finished job of store A, of store B and of the system in queue pgtap_done');
UPDATE jobq.job_history SET state = 'dead';
SELECT FROM jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', queue => 'pgtap_shared');
SELECT FROM jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', queue => 'pgtap_shared');
SELECT FROM jobq.enqueue('pgtap-system-task', queue => 'pgtap_shared');

SELECT results_eq(
    $$ SELECT queue, store_id, queued, dead_last_day FROM jobq.stats() $$,
    $$ VALUES ('pgtap_a'::text, NULL::uuid, 1::bigint, 0::bigint), ('pgtap_b', NULL, 1, 0), ('pgtap_done', NULL, 0, 3),
              ('pgtap_shared', NULL, 3, 0), ('pgtap_system', NULL, 1, 0) $$,
    'an operator counts every store and the system jobs, store_id NULL');
SELECT results_eq(
    $$ SELECT queue, store_id, queued, dead_last_day FROM jobq.stats(store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$,
    $$ VALUES ('pgtap_b'::text, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'::uuid, 1::bigint, 0::bigint),
              ('pgtap_done', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 0, 1), ('pgtap_shared', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 1, 0) $$,
    'an operator passing store_id counts that store only');

SET LOCAL ROLE jobq_operator;
SELECT is((SELECT sum(queued) FROM jobq.stats()), 6::numeric, 'jobq_operator itself counts every store');
RESET ROLE;

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq(
    $$ SELECT queue, store_id, queued, dead_last_day FROM jobq.stats() $$,
    $$ VALUES ('pgtap_a'::text, 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid, 1::bigint, 0::bigint),
              ('pgtap_done', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 0, 1), ('pgtap_shared', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 1, 0) $$,
    'an application counts only its session''s store: no queue of store B or of the system, no job of theirs in a shared queue');
SELECT results_eq(
    $$ SELECT queue, queued FROM jobq.stats('pgtap_shared', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
    $$ VALUES ('pgtap_shared'::text, 1::bigint) $$,
    'an application may name its own store');
SET LOCAL app.current_store_id = '';
SELECT is_empty($$ SELECT * FROM jobq.stats() $$, 'an application without a store counts nothing');
RESET ROLE;

SELECT ok(has_function_privilege('jobq_app', 'jobq.stats(text,uuid)', 'EXECUTE')
          AND has_function_privilege('jobq_operator', 'jobq.stats(text,uuid)', 'EXECUTE'), 'applications and operators may call stats');
SELECT ok(NOT has_function_privilege('worker_runtime', 'jobq.stats(text,uuid)', 'EXECUTE')
          AND NOT has_function_privilege('public', 'jobq.stats(text,uuid)', 'EXECUTE')
          AND NOT has_function_privilege('jobq_app', 'jobq._stats(text,uuid)', 'EXECUTE')
          AND NOT has_function_privilege('jobq_operator', 'jobq._stats(text,uuid)', 'EXECUTE'), 'runners and PUBLIC may not, and nobody calls jobq._stats directly');

SELECT * FROM finish();
ROLLBACK;
