-- jobq.queue_depth() for a known fixture: per queue the live jobs by state (queued due,
-- retry_pending, running, scheduled in the future) and the jobs that died in the last hour; the
-- queues asked for (NULL elements ignored, zeros when empty) or every queue with a live job.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');

INSERT INTO jobq.jobs (task, queue, run_at, state, max_attempts) VALUES
    ('pgtap-t', 'pgtap_d', now() - interval '10 minutes', 'queued', 3),
    ('pgtap-t', 'pgtap_d', now() - interval '2 minutes', 'queued', 3),
    ('pgtap-t', 'pgtap_d', now() + interval '1 hour', 'queued', 3),
    ('pgtap-t', 'pgtap_d', now() - interval '20 minutes', 'retry_pending', 3),
    ('pgtap-t', 'pgtap_d', now() + interval '5 minutes', 'retry_pending', 3),
    ('pgtap-t', 'pgtap_future', now() + interval '1 day', 'queued', 3);
INSERT INTO jobq.jobs (task, queue, run_at, state, max_attempts, locked_by, lease_token, claimed_at, lease_expires_at)
VALUES ('pgtap-t', 'pgtap_d', now() - interval '1 minute', 'running', 3, 'pgtap-w', gen_random_uuid(), now(), now() + interval '5 minutes');

-- History (finished_at in minutes before now): two dead in the last hour, one dead earlier, one
-- succeeded; a queue with only recent dead jobs and no live one.
INSERT INTO jobq.job_history (id, task, queue, payload, priority, run_at, state, attempt, max_attempts, created_at, updated_at, finished_at)
SELECT 910000 + row_number() OVER (), 'pgtap-t', q, '{}', 0, now() - interval '1 day', s, 1, 3,
       now() - interval '1 day', now(), now() - f * interval '1 minute'
FROM (VALUES ('pgtap_d', 'dead', 5), ('pgtap_d', 'dead', 59), ('pgtap_d', 'dead', 61), ('pgtap_d', 'succeeded', 1),
             ('pgtap_gone', 'dead', 3)) AS v(q, s, f);

SELECT results_eq(
    $$ SELECT queue, queued, retry_pending, running, scheduled, dead_last_hour FROM jobq.queue_depth() $$,
    $$ VALUES ('pgtap_d'::text, 2::bigint, 2::bigint, 1::bigint, 1::bigint, 2::bigint),
              ('pgtap_future', 0, 0, 0, 1, 0) $$,
    'without a list: every queue with a live job, its jobs by state and its dead of the last hour');
SELECT results_eq(
    $$ SELECT queue, queued, retry_pending, running, scheduled, dead_last_hour
       FROM jobq.queue_depth(ARRAY['pgtap_gone', NULL, 'pgtap_empty', 'pgtap_d', 'pgtap_d']) $$,
    $$ VALUES ('pgtap_d'::text, 2::bigint, 2::bigint, 1::bigint, 1::bigint, 2::bigint),
              ('pgtap_empty', 0, 0, 0, 0, 0),
              ('pgtap_gone', 0, 0, 0, 0, 1) $$,
    'with a list: one row per queue named, NULLs and duplicates ignored, zeros for an empty queue');
SELECT is_empty($$ SELECT * FROM jobq.queue_depth('{}') $$, 'an empty list gives no row');

SELECT * FROM finish();
ROLLBACK;
