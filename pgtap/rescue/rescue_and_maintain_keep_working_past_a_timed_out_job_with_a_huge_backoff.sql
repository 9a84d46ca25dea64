-- A running job written before the limits (or by hand) whose timeout passed and whose backoff no
-- timestamp can hold: rescue_expired and maintain requeue it (its backoff clamped to 30 days)
-- instead of raising 22008 on every call, and handle the other expired jobs too.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

INSERT INTO jobq.jobs (task, queue, max_attempts, attempt, state, locked_by, lease_token, claimed_at, heartbeat_at,
                       lease_expires_at, timeout, deadline_at, backoff_base, backoff_max) VALUES
    ('t', 'q', 5, 1, 'running', 'w', gen_random_uuid(), now() - interval '1 hour', now() - interval '1 hour',
     now() + interval '1 hour', interval '1 second', now() - interval '59 minutes', interval '1000000 years', interval '1000000 years'),
    ('t', 'q', 5, 1, 'running', 'w', gen_random_uuid(), now() - interval '1 hour', now() - interval '1 hour',
     now() - interval '1 minute', NULL, NULL, NULL, NULL);
SELECT jobq_test.leases_for_running();
CREATE TEMP TABLE ids AS SELECT array_agg(id ORDER BY id) AS a FROM jobq.jobs;
GRANT SELECT ON ids TO worker_runtime;

SET LOCAL ROLE worker_runtime;
SELECT results_eq(
    $$ SELECT job_id, outcome, reason FROM jobq.rescue_expired() ORDER BY job_id $$,
    $$ SELECT (SELECT a[1] FROM ids), 'retry_pending'::text, 'timed_out'::text
       UNION ALL SELECT (SELECT a[2] FROM ids), 'retry_pending', 'orphaned' $$,
    'rescue_expired requeues the job with a 1000000-year backoff and the orphaned job beside it');
RESET ROLE;
SELECT ok((SELECT run_at BETWEEN now() + interval '15 days' AND now() + interval '30 days' FROM jobq.jobs WHERE id = (SELECT a[1] FROM ids)),
          'its next run is within the 30-day backoff limit (half to all of it, with jitter)');

-- The same again, through maintain, with the settings' backoff huge too.
UPDATE jobq.settings SET value = '1000000 years' WHERE name IN ('backoff_base', 'backoff_max');
UPDATE jobq.jobs SET state = 'running', lease_token = gen_random_uuid(), lease_expires_at = now() + interval '1 hour',
                     deadline_at = now() - interval '1 second', backoff_base = NULL, backoff_max = NULL
WHERE id = (SELECT a[1] FROM ids);
SELECT jobq_test.leases_for_running();
SET LOCAL ROLE worker_runtime;
SELECT is((jobq.maintain() ->> 'rescued')::integer, 1, 'maintain rescues it with the settings'' backoff of 1000000 years');
RESET ROLE;
SELECT ok((SELECT run_at < 'infinity' AND run_at <= now() + interval '30 days' FROM jobq.jobs WHERE id = (SELECT a[1] FROM ids)),
          'the settings'' backoff is clamped to the 30-day limit too');

-- fail_job takes the same path.
UPDATE jobq.jobs SET state = 'running', lease_token = '11111111-1111-1111-1111-111111111111', lease_expires_at = now() + interval '1 hour',
                     deadline_at = NULL, backoff_base = interval '1000000 years', backoff_max = interval '1000000 years'
WHERE id = (SELECT a[1] FROM ids);
SET LOCAL ROLE worker_runtime;
SELECT is(jobq.fail_job((SELECT a[1] FROM ids), '11111111-1111-1111-1111-111111111111', 'boom'), 'retry_pending',
          'fail_job of a job with a 1000000-year backoff requeues it');
RESET ROLE;
SELECT ok((SELECT run_at <= now() + interval '30 days' FROM jobq.jobs WHERE id = (SELECT a[1] FROM ids)),
          'and its next run is within the 30-day backoff limit');

SELECT * FROM finish();
ROLLBACK;
