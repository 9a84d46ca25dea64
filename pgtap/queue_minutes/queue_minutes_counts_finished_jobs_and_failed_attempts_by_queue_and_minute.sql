-- jobq.queue_minutes(since) counts, per queue and minute since since, the jobs that succeeded
-- and died (jobq.job_history) and the attempts that failed (jobq.job_attempts); it runs as its
-- caller, so an application counts its store's rows only.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.job_history (id, task, queue, payload, store_id, priority, run_at, state, attempt, max_attempts, created_at, updated_at, finished_at)
VALUES (990001, 'pgtap-t', 'pgtap_m', '{}', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 0, now(), 'dead', 1, 1, now(), now(), '2026-01-01 10:00:10+00'),
       (990002, 'pgtap-t', 'pgtap_m', '{}', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 0, now(), 'succeeded', 1, 1, now(), now(), '2026-01-01 10:00:50+00'),
       (990003, 'pgtap-t', 'pgtap_m', '{}', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 0, now(), 'succeeded', 1, 1, now(), now(), '2026-01-01 10:01:00+00'),
       (990004, 'pgtap-t', 'pgtap_m', '{}', NULL, 0, now(), 'succeeded', 1, 1, now(), now(), '2026-01-01 09:59:59+00');
INSERT INTO jobq.job_attempts (job_id, attempt, store_id, task, queue, ended_at, reason, error)
VALUES (990001, 1, 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'pgtap-t', 'pgtap_m', '2026-01-01 10:00:05+00', 'error', 'boom');

SELECT results_eq(
    $$ SELECT queue, minute, succeeded, dead, failed FROM jobq.queue_minutes('2026-01-01 10:00:00+00') $$,
    $$ VALUES ('pgtap_m'::text, '2026-01-01 10:00:00+00'::timestamptz, 1::bigint, 1::bigint, 1::bigint),
              ('pgtap_m', '2026-01-01 10:01:00+00', 1, 0, 0) $$,
    'finished jobs and failed attempts by minute, nothing before since');
SELECT is_empty($$ SELECT * FROM jobq.queue_minutes(NULL) $$, 'since NULL gives no row');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq(
    $$ SELECT queue, succeeded, dead, failed FROM jobq.queue_minutes('2026-01-01 10:00:00+00') $$,
    $$ VALUES ('pgtap_m'::text, 0::bigint, 1::bigint, 1::bigint) $$,
    'an application counts its store''s jobs and attempts only');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
