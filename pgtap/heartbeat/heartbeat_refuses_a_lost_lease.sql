BEGIN;
SELECT plan(6);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;
-- The tasks this file enqueues: every enqueue needs a declared task (jobq.define_task is
-- idempotent and puts back a task whose declaration differs).
SELECT FROM jobq.define_task('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', run_at => now() - interval '1 minute') AS id;
CREATE TEMP TABLE c AS SELECT * FROM jobq._claim('w1', ARRAY['q'], 1, '30 seconds', now() - interval '20 seconds');

SELECT is(jobq.heartbeat('w1', (SELECT id FROM c), (SELECT lease_token FROM c), '45 seconds'), now() + interval '45 seconds',
          'heartbeat with the claim''s token returns the new expiry now() + lease');
SELECT throws_ok(
    format('SELECT jobq.heartbeat(%L, %s, %L)', 'w1', (SELECT id FROM c), gen_random_uuid()),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token for worker w1', (SELECT id FROM c)),
    'heartbeat refuses a wrong token with JQ201 JOB.LEASE_LOST');
SELECT throws_ok(
    format('SELECT jobq.heartbeat(%L, %s, %L)', 'w2', (SELECT id FROM c), (SELECT lease_token FROM c)),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token for worker w2', (SELECT id FROM c)),
    'heartbeat refuses the right token from another worker');
SELECT is((SELECT lease_expires_at FROM jobq.jobs WHERE id = (SELECT id FROM c)), now() + interval '45 seconds',
          'the refused heartbeats changed nothing');

SELECT lives_ok($$ SELECT jobq.complete_job((SELECT id FROM c), (SELECT lease_token FROM c)) $$, 'setup: the job completes');
SELECT throws_ok(
    format('SELECT jobq.heartbeat(%L, %s, %L)', 'w1', (SELECT id FROM c), (SELECT lease_token FROM c)),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token for worker w1', (SELECT id FROM c)),
    'heartbeat of a finished job raises JQ201');

SELECT * FROM finish();
ROLLBACK;
