-- queue_lag: the age of the head of each queue's claim order, without reading job content.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT jobq.enqueue('t', queue => 'late', run_at => now() - interval '90 seconds', priority => 5);
SELECT jobq.enqueue('t', queue => 'late', run_at => now() - interval '30 seconds', priority => 0);
SELECT jobq.enqueue('t', queue => 'future', run_at => now() + interval '1 hour');

SELECT results_eq(
    $$ SELECT queue, lag FROM jobq.queue_lag(ARRAY['late', 'future', 'empty']) $$,
    $$ VALUES ('empty'::text, interval '0'), ('future', interval '0'), ('late', interval '30 seconds') $$,
    'queue_lag gives, per queue asked, how long the next job to be claimed (by priority) has waited; 0 when none is due');
SELECT results_eq(
    $$ SELECT queue FROM jobq.queue_lag() $$,
    $$ VALUES ('future'::text), ('late') $$,
    'without a list, queue_lag covers every queue that has a live job');

SET LOCAL ROLE worker_runtime;
SELECT is((SELECT lag FROM jobq.queue_lag(ARRAY['late'])), interval '30 seconds',
          'worker_runtime reads the lag through queue_lag although it cannot read jobq.jobs');
SELECT throws_ok($$ SELECT count(*) FROM jobq.jobs $$, '42501', NULL,
                 'while a direct read of jobq.jobs stays refused to worker_runtime');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
