-- jobq.stats() for a known fixture: one row per queue with a live job or a job finished in the
-- last day; live jobs by state (blocked ones apart: never queued nor scheduled) and the age of the
-- oldest due one; from history the dead and
-- succeeded counts, throughput and the p50/p95 of wait and run time over the last hour. A named
-- queue gives only its row (zeros when it has nothing).
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');

INSERT INTO jobq.jobs (task, queue, run_at, state, max_attempts) VALUES
    ('pgtap-t', 'pgtap_s', now() - interval '10 minutes', 'queued', 3),
    ('pgtap-t', 'pgtap_s', now() - interval '2 minutes', 'queued', 3),
    ('pgtap-t', 'pgtap_s', now() + interval '1 hour', 'queued', 3),
    ('pgtap-t', 'pgtap_s', now() - interval '20 minutes', 'retry_pending', 3),
    ('pgtap-t', 'pgtap_s', now() + interval '5 minutes', 'retry_pending', 3),
    ('pgtap-t', 'pgtap_future', now() + interval '1 day', 'queued', 3),
    -- Blocked (waiting for parents or a sequence): one whose run_at is long past, one in the future.
    -- Neither is queued, scheduled nor the oldest due job.
    ('pgtap-t', 'pgtap_s', now() - interval '30 minutes', 'blocked', 3),
    ('pgtap-t', 'pgtap_s', now() + interval '2 hours', 'blocked', 3);
INSERT INTO jobq.jobs (task, queue, run_at, state, max_attempts, locked_by, lease_token, claimed_at, lease_expires_at)
VALUES ('pgtap-t', 'pgtap_s', now() - interval '1 minute', 'running', 3, 'pgtap-w', gen_random_uuid(), now(), now() + interval '5 minutes');

-- History (run_at, claimed_at, finished_at as minutes before now): in the last hour wait 5, 1, 3
-- minutes and run 5, 9, 7 minutes; a canceled job never claimed counts in no percentile.
INSERT INTO jobq.job_history (id, task, queue, payload, priority, run_at, state, attempt, max_attempts, claimed_at, created_at, updated_at, finished_at)
SELECT 900000 + row_number() OVER (), 'pgtap-t', q, '{}', 0, now() - r * interval '1 minute', s, 1, 3,
       now() - c * interval '1 minute', now() - interval '3 days', now(), now() - f * interval '1 minute'
FROM (VALUES ('pgtap_s', 'succeeded', 20, 15, 10), ('pgtap_s', 'succeeded', 40, 39, 30), ('pgtap_s', 'dead', 60, 57, 50),
             ('pgtap_s', 'dead', 310, 305, 300), ('pgtap_s', 'succeeded', 2900, 2890, 2880),
             ('pgtap_hist', 'dead', 200, 190, 180), ('pgtap_old', 'succeeded', 3000, 2999, 2990)) AS v(q, s, r, c, f);
INSERT INTO jobq.job_history (id, task, queue, payload, priority, run_at, state, attempt, max_attempts, created_at, updated_at, finished_at)
VALUES (900100, 'pgtap-t', 'pgtap_s', '{}', 0, now() - interval '6 minutes', 'canceled', 0, 3, now() - interval '6 minutes', now(), now() - interval '5 minutes');

SELECT results_eq(
    $$ SELECT queue, store_id, queued, retry_pending, running, scheduled, blocked, oldest_due_age FROM jobq.stats() $$,
    $$ VALUES ('pgtap_future'::text, NULL::uuid, 0::bigint, 0::bigint, 0::bigint, 1::bigint, 0::bigint, NULL::interval),
              ('pgtap_hist', NULL, 0, 0, 0, 0, 0, NULL),
              ('pgtap_s', NULL, 2, 2, 1, 1, 2, interval '20 minutes') $$,
    'live jobs per queue: queued due, retry_pending, running, scheduled in the future, blocked (never queued, scheduled nor the oldest due), the oldest due job''s age; a queue with only older history has no row');
SELECT results_eq(
    $$ SELECT queue, dead_last_hour, dead_last_day, succeeded_last_hour, succeeded_per_minute FROM jobq.stats() $$,
    $$ VALUES ('pgtap_future'::text, 0::bigint, 0::bigint, 0::bigint, 0.00::numeric),
              ('pgtap_hist', 0, 1, 0, 0.00),
              ('pgtap_s', 1, 2, 2, 0.03) $$,
    'dead in the last hour and day, succeeded in the last hour and per minute, by finished_at');
SELECT results_eq(
    $$ SELECT wait_p50, wait_p95, run_p50, run_p95 FROM jobq.stats() WHERE queue = 'pgtap_s' $$,
    $$ VALUES (interval '3 minutes', interval '4 minutes 48 seconds', interval '7 minutes', interval '8 minutes 48 seconds') $$,
    'wait (claimed_at - run_at) and run (finished_at - claimed_at) percentiles over the claimed jobs finished in the last hour');
SELECT ok((SELECT wait_p50 IS NULL AND run_p95 IS NULL FROM jobq.stats() WHERE queue = 'pgtap_hist'),
          'no percentile for a queue with nothing finished in the last hour');
SELECT results_eq(
    $$ SELECT queue, queued, scheduled, blocked, dead_last_day FROM jobq.stats('pgtap_s') $$,
    $$ VALUES ('pgtap_s'::text, 2::bigint, 1::bigint, 2::bigint, 2::bigint) $$,
    'a named queue gives only its own row');
SELECT results_eq(
    $$ SELECT queue, store_id, queued, retry_pending, running, scheduled, blocked, oldest_due_age, dead_last_day, succeeded_per_minute, wait_p50 FROM jobq.stats('pgtap_none') $$,
    $$ VALUES ('pgtap_none'::text, NULL::uuid, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint, NULL::interval, 0::bigint, 0.00::numeric, NULL::interval) $$,
    'a named queue without jobs gives a row of zeros');

SELECT * FROM finish();
ROLLBACK;
