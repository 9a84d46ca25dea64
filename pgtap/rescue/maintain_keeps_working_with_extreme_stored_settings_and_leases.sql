-- Settings and leases written by hand with values the API refuses: maintain, rescue_expired and
-- prune_history still run, for everyone.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

UPDATE jobq.settings SET value = '1000000 years' WHERE name IN ('history_retention', 'worker_timeout');
INSERT INTO jobq.jobs (task, queue, max_attempts, attempt, state, locked_by, lease_token, lease_expires_at, deadline_at) VALUES
    ('t', 'q', 5, 1, 'running', 'w', gen_random_uuid(), 'infinity', '-infinity'),
    ('t', 'q', 5, 1, 'running', 'w', gen_random_uuid(), '-infinity', 'infinity');
SELECT jobq_test.leases_for_running();

SET LOCAL ROLE worker_runtime;
SELECT is((jobq.maintain() ->> 'rescued')::integer, 2,
          'maintain runs with a retention and worker_timeout of 1000000 years and sweeps both jobs (deadline or lease at -infinity)');
SELECT is(jobq.prune_history(), 0::bigint, 'prune_history runs with a retention of 1000000 years');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'retry_pending'), 2::bigint, 'both jobs wait for their next attempt');
SELECT ok((SELECT bool_and(run_at < 'infinity') FROM jobq.jobs), 'each with a finite next run');

SELECT * FROM finish();
ROLLBACK;
