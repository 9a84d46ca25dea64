-- jobq.queue_list() is jobq.stats() with the queues known without jobs: each row of stats comes
-- back with the same counts (a queue whose jobs all died included), and a paused queue, a live
-- worker's queue and a schedule's queue without jobs get a row of zeros, with the pause.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.jobs (task, queue, max_attempts, run_at, state) VALUES
    ('pgtap-t', 'pgtap_live', 3, now() - interval '1 minute', 'queued'),
    ('pgtap-t', 'pgtap_live', 3, now() + interval '1 hour', 'queued'),
    ('pgtap-t', 'pgtap_live', 3, now() + interval '1 hour', 'retry_pending');
INSERT INTO jobq.job_history (id, task, queue, payload, priority, run_at, state, attempt, max_attempts, created_at, updated_at, finished_at)
VALUES (990001, 'pgtap-t', 'pgtap_dead', '{}', 0, now(), 'dead', 1, 1, now(), now(), now()),
       (990002, 'pgtap-t', 'pgtap_dead', '{}', 0, now(), 'dead', 1, 1, now(), now(), now());
SELECT jobq.pause_queue('pgtap_paused');
SELECT FROM jobq.register_worker('w-pgtap', 'node', 1, ARRAY['pgtap_served'], 1, 'v', NULL);
SELECT FROM jobq.schedule('pgtap-nightly', '0 3 * * *', 'pgtap-t', queue => 'pgtap_scheduled');

SELECT results_eq(
    $$ SELECT queue, queued, retry_pending, running, scheduled, dead_last_hour, dead_last_day, not_served
       FROM jobq.queue_list() WHERE queue IN (SELECT s.queue FROM jobq.stats() s) $$,
    $$ SELECT queue, queued, retry_pending, running, scheduled, dead_last_hour, dead_last_day, not_served FROM jobq.stats() $$,
    'every row of jobq.stats() comes back with its counts');
SELECT results_eq(
    $$ SELECT queue, queued, scheduled, retry_pending, dead_last_hour FROM jobq.queue_list() WHERE queue IN ('pgtap_live', 'pgtap_dead') $$,
    $$ VALUES ('pgtap_dead'::text, 0::bigint, 0::bigint, 0::bigint, 2::bigint), ('pgtap_live', 1, 1, 1, 0) $$,
    'a queue whose jobs all died is listed with its dead; scheduled counts the queued jobs of a future run_at, retries apart');
SELECT results_eq(
    $$ SELECT queue, paused, queued + retry_pending + running + scheduled FROM jobq.queue_list()
       WHERE queue NOT IN (SELECT s.queue FROM jobq.stats() s) $$,
    $$ VALUES ('pgtap_paused'::text, true, 0::bigint), ('pgtap_scheduled', false, 0), ('pgtap_served', false, 0) $$,
    'the paused queue, the live worker''s queue and the schedule''s queue, none with a job, get a row of zeros');
SELECT results_eq(
    $$ SELECT queue FROM jobq.queue_list('pgtap_paused') $$, $$ VALUES ('pgtap_paused'::text) $$,
    'a named queue gives its row only');
SELECT throws_like($$ SELECT * FROM jobq.queue_list(' ') $$, 'JOB.INVALID_ARGUMENT%',
    'a blank queue is refused, as by jobq.stats');

SELECT * FROM finish();
ROLLBACK;
