-- jobq.queue_states() lists every queue the engine knows — one with live jobs, a worker's queue,
-- a schedule's queue, a paused queue — with its pause and its live jobs by state, across stores;
-- operators may call it, applications and runners may not.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.enqueue('pgtap-t', '{}', queue => 'pgtap_jobs');
SELECT FROM jobq.enqueue('pgtap-t', '{}', queue => 'pgtap_jobs');
SELECT FROM jobq.enqueue('pgtap-t', '{}', queue => 'pgtap_jobs', run_at => now() + interval '1 hour');
SELECT FROM jobq.enqueue('pgtap-t', '{}', queue => 'pgtap_jobs');
SELECT FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_jobs'], 1);
UPDATE jobq.jobs SET state = 'retry_pending' WHERE id = (SELECT max(id) FROM jobq.jobs WHERE state = 'queued' AND run_at <= now());
SELECT FROM jobq.register_worker('pgtap-w', 'node', 1, ARRAY['pgtap_worker'], 1);
SELECT FROM jobq.schedule('pgtap-s', '0 * * * *', 'pgtap-t', queue => 'pgtap_sched');
SELECT FROM jobq.pause_queue('pgtap_paused');

SELECT results_eq(
    $$ SELECT queue, paused, paused_by, queued, retry_pending, running, scheduled FROM jobq.queue_states() $$,
    $$ VALUES ('pgtap_jobs'::text, false, NULL::text, 1::bigint, 1::bigint, 1::bigint, 1::bigint),
              ('pgtap_paused', true, session_user::text COLLATE "default", 0, 0, 0, 0),
              ('pgtap_sched', false, NULL, 0, 0, 0, 0),
              ('pgtap_worker', false, NULL, 0, 0, 0, 0) $$,
    'each known queue once, by name, with its pause and its counts (queued due, retry_pending, running, scheduled in the future)');
SELECT ok(has_function_privilege('jobq_operator', 'jobq.queue_states()', 'EXECUTE'), 'operators may call queue_states');
SELECT ok(NOT has_function_privilege('jobq_app', 'jobq.queue_states()', 'EXECUTE')
          AND NOT has_function_privilege('worker_runtime', 'jobq.queue_states()', 'EXECUTE'), 'applications and runners may not');
SELECT ok(has_table_privilege('jobq_app', 'jobq.queues', 'SELECT') AND has_table_privilege('worker_runtime', 'jobq.queues', 'SELECT')
          AND has_table_privilege('jobq_operator', 'jobq.queues', 'SELECT')
          AND NOT has_function_privilege('jobq_app', 'jobq.pause_queue(text)', 'EXECUTE')
          AND NOT has_function_privilege('worker_runtime', 'jobq.resume_queue(text)', 'EXECUTE'),
   'jobq.queues is readable by operators, runners and applications; only operators pause and resume');

SELECT * FROM finish();
ROLLBACK;
