-- Progress is fenced by the lease token, like every write of a running attempt: a zombie (a
-- worker whose lease expired, was rescued and claimed again by another worker) cannot overwrite
-- the new attempt's progress, nor the failed attempt's row in jobq.job_attempts.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
CREATE TEMP TABLE job AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id;
CREATE TEMP TABLE first AS SELECT id, lease_token FROM jobq.claim_job('pgtap-zombie', ARRAY['pgtap_q'], 1);
GRANT SELECT ON job, first TO worker_runtime;

SET LOCAL ROLE worker_runtime;
SELECT lives_ok(format('SELECT jobq.set_progress(%s, %L, %L)', (SELECT id FROM job), (SELECT lease_token FROM first), '{"done": 1}'),
                'the lease holder writes its progress');
RESET ROLE;

-- The lease runs out; the sweeper rescues the job and another worker claims it.
UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 second', run_at = now() - interval '1 hour' WHERE id = (SELECT id FROM job);
SELECT is((SELECT count(*)::integer FROM jobq.rescue_expired()), 1, 'setup: the expired lease is rescued');
UPDATE jobq.jobs SET run_at = now() - interval '1 second' WHERE id = (SELECT id FROM job);
CREATE TEMP TABLE second AS SELECT id, lease_token FROM jobq.claim_job('pgtap-new', ARRAY['pgtap_q'], 1);
GRANT SELECT ON second TO worker_runtime;
SET LOCAL ROLE worker_runtime;
SELECT jobq.set_progress((SELECT id FROM job), (SELECT lease_token FROM second), '{"done": 7}');

SELECT throws_ok(format('SELECT jobq.set_progress(%s, %L, %L)', (SELECT id FROM job), (SELECT lease_token FROM first), '{"done": 99}'),
                 'JQ201', NULL, 'the zombie''s stale token is refused (JOB.LEASE_LOST)');
RESET ROLE;
SELECT is((SELECT progress FROM jobq.jobs WHERE id = (SELECT id FROM job)), '{"done": 7}'::jsonb,
          'the new attempt''s progress is untouched');
SELECT is((SELECT progress FROM jobq.job_attempts WHERE job_id = (SELECT id FROM job) AND attempt = 1), '{"done": 1}'::jsonb,
          'the rescued attempt kept the progress it had reported, in its attempt row');
SELECT is((SELECT leader_epoch FROM jobq.job_attempts WHERE job_id = (SELECT id FROM job) AND attempt = 1),
          (SELECT epoch FROM jobq.leader), 'and the leader epoch it was recorded under');

SELECT * FROM finish();
ROLLBACK;
