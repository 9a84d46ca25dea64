-- A waiting job stored with run_at -infinity (before the limits, or by hand) is the head of its
-- queue: queue_lag reports the saturated lag of 200000 years instead of raising, for every queue.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

INSERT INTO jobq.jobs (task, queue, max_attempts, run_at) VALUES ('t', 'q', 3, '-infinity'), ('t', 'q', 3, '4713-01-01 BC');
SELECT jobq.enqueue('t', queue => 'other', run_at => now() - interval '10 seconds');

SET LOCAL ROLE worker_runtime;
SELECT results_eq(
    $$ SELECT queue, lag FROM jobq.queue_lag() $$,
    $$ VALUES ('other'::text, interval '10 seconds'), ('q', interval '200000 years') $$,
    'queue_lag saturates the lag of a head job at -infinity at 200000 years and reports the other queues');
RESET ROLE;
DELETE FROM jobq.jobs WHERE run_at = '-infinity';
SELECT ok((SELECT lag FROM jobq.queue_lag(ARRAY['q'])) > interval '6000 years',
          'a head job at 4713 BC gives its real lag');

SELECT * FROM finish();
ROLLBACK;
