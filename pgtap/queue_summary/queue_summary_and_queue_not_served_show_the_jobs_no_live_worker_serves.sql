-- jobq.queue_summary (the dashboard's overview) and jobq.queue_not_served (the runners'
-- jobq_jobs_not_served gauge) count the waiting jobs no live worker serves as jobq.stats does,
-- from the one definition (jobq._served_by_live_workers): not_served up to cap + 1, and the
-- oldest due one (its run_at; its age for the gauge). A queue whose live worker serves every task
-- shows 0 and NULL.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('task-a', 'task-b');
SELECT jobq.enqueue('task-a', queue => 'q1', run_at => '2026-01-01 10:00+00');
SELECT jobq.enqueue('task-b', queue => 'q1', run_at => '2026-01-01 11:00+00', priority => 5);
SELECT jobq.enqueue('task-b', queue => 'q1', run_at => '2026-01-01 09:00+00', priority => 9);
SELECT jobq.enqueue('task-b', queue => 'q1', run_at => now() + interval '1 day');
SELECT jobq.register_worker('w-a', 'n', 1, ARRAY['q1'], 1, '', ARRAY['task-a']);
SELECT jobq.register_worker('w-all', 'n', 2, ARRAY['q2'], 1, '');

SELECT results_eq($$ SELECT queue, not_served, not_served_oldest_at FROM jobq.queue_summary() ORDER BY queue $$,
    $$ VALUES ('q1', 3::bigint, '2026-01-01 09:00+00'::timestamptz), ('q2', 0::bigint, NULL::timestamptz) $$,
    'q1: the three task-b jobs, the oldest due one across priorities; q2: served whole');
SELECT results_eq($$ SELECT queue, not_served FROM jobq.queue_summary(2) WHERE queue = 'q1' $$,
    $$ VALUES ('q1', 3::bigint) $$, 'the count stops at cap + 1');

SET LOCAL ROLE worker_runtime;
SELECT results_eq($$ SELECT queue, not_served, oldest_age > interval '1 day' FROM jobq.queue_not_served(ARRAY['q1', 'q2', NULL, 'q3']) $$,
    $$ VALUES ('q1', 3::bigint, true), ('q2', 0::bigint, NULL::boolean), ('q3', 0::bigint, NULL::boolean) $$,
    'queue_not_served, for worker_runtime: per queue given, NULLs ignored');
SELECT is_empty($$ SELECT * FROM jobq.queue_not_served(NULL) $$, 'a NULL list gives no row');
SELECT throws_like($$ SELECT * FROM jobq.queue_not_served(ARRAY(SELECT 'q' || i FROM generate_series(1, 1001) i)) $$,
    'JOB.OUT_OF_RANGE: queues%', 'more than 1000 queues are refused');
RESET ROLE;

SET LOCAL ROLE jobq_viewer;
SELECT results_eq($$ SELECT queue, not_served FROM jobq.queue_summary() ORDER BY queue $$,
    $$ VALUES ('q1', 3::bigint), ('q2', 0::bigint) $$, 'a viewer sees it too');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
