BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q', run_at => now() - interval '1 minute') FROM generate_series(1, 3) $$, 'setup: three jobs due a minute ago');
-- Claimed 20 s ago with a 30 s lease: each lease expires at now() + 10 s.
CREATE TEMP TABLE w1 AS SELECT row_number() OVER (ORDER BY id) AS n, * FROM jobq._claim('w1', ARRAY['q'], 2, '30 seconds', now() - interval '20 seconds');
CREATE TEMP TABLE w2 AS SELECT * FROM jobq._claim('w2', ARRAY['q'], 1, '30 seconds', now() - interval '20 seconds');

SELECT is((SELECT count(*) FROM w1) + (SELECT count(*) FROM w2), 3::bigint, 'setup: w1 holds two jobs, w2 one');

CREATE TEMP TABLE renewed AS
SELECT * FROM jobq.heartbeat_jobs('w1',
    ARRAY[(SELECT id FROM w1 WHERE n = 1), (SELECT id FROM w1 WHERE n = 2), (SELECT id FROM w2)],
    ARRAY[(SELECT lease_token FROM w1 WHERE n = 1), gen_random_uuid(), (SELECT lease_token FROM w2)],
    '1 minute');

SELECT results_eq(
    $$ SELECT job_id, lease_expires_at FROM renewed $$,
    $$ SELECT id, now() + interval '1 minute' FROM w1 WHERE n = 1 $$,
    'heartbeat_jobs returns only the job the worker holds under a valid token, with its new expiry');
SELECT results_eq(
    $$ SELECT heartbeat_at, lease_expires_at FROM jobq.jobs WHERE id = (SELECT id FROM w1 WHERE n = 1) $$,
    $$ VALUES (now(), now() + interval '1 minute') $$,
    'the renewed job has heartbeat_at = now() and lease_expires_at = now() + lease');
SELECT results_eq(
    $$ SELECT heartbeat_at, lease_expires_at FROM jobq.jobs WHERE id = (SELECT id FROM w1 WHERE n = 2) $$,
    $$ VALUES (now() - interval '20 seconds', now() + interval '10 seconds') $$,
    'a job sent with a wrong token is not renewed');
SELECT results_eq(
    $$ SELECT locked_by, heartbeat_at, lease_expires_at FROM jobq.jobs WHERE id = (SELECT id FROM w2) $$,
    $$ VALUES ('w2'::text, now() - interval '20 seconds', now() + interval '10 seconds') $$,
    'another worker''s job is not renewed even with its correct token');

SELECT * FROM finish();
ROLLBACK;
