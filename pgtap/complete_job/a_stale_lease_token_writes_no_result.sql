-- A result is fenced by the lease token: a completion under a token the job no longer runs under
-- (a zombie whose job was rescued and claimed again) writes no result, and the current attempt's
-- result is the one kept.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE first AS SELECT * FROM jobq.claim_job('w1', ARRAY['q']);
-- The first lease is lost (as the sweeper does with an expired one) and another worker claims the job.
UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 second' WHERE id = (SELECT id FROM job);
SELECT FROM jobq.rescue_expired();
UPDATE jobq.jobs SET run_at = now() WHERE id = (SELECT id FROM job);
CREATE TEMP TABLE second AS SELECT * FROM jobq.claim_job('w2', ARRAY['q']);

SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L, ''{"from": "zombie"}'')', id, lease_token),
                 'JQ201', NULL, 'the stale token''s completion with a result is refused with JQ201')
FROM first;
SELECT results_eq(format($$ SELECT outcome FROM jobq.complete_jobs(ARRAY[%s]::bigint[], ARRAY[%L]::uuid[], results => ARRAY['{"from": "zombie"}']::jsonb[]) $$,
                         id, lease_token),
                  $$ VALUES ('lease_lost') $$, 'complete_jobs reports the stale token''s result as lease_lost')
FROM first;
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L, ''{"from": "w2"}'')', id, lease_token), 'the current attempt completes')
FROM second;
SELECT results_eq($$ SELECT state, result FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
                  $$ VALUES ('succeeded', '{"from": "w2"}'::jsonb) $$,
                  'the history row keeps the current attempt''s result, none of the zombie''s');

SELECT * FROM finish();
ROLLBACK;
