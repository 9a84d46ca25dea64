BEGIN;
SELECT plan(4);

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

CREATE TEMP TABLE dead AS SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:nightly') AS id;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c), (SELECT lease_token FROM c), 'x', retryable => false), 'dead', 'setup: the keyed job is dead');
CREATE TEMP TABLE live AS SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:nightly') AS id;

SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM dead)),
    'JQ203', format('JOB.STATE_CONFLICT: job %s cannot be queued again: a live job holds its job_key', (SELECT id FROM dead)),
    'retry_job refuses a dead job whose key a live job holds, with JQ203');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM dead)), 'dead', 'the dead job stays dead in history');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:nightly'), 1::bigint, 'only the live job holds the key');

SELECT * FROM finish();
ROLLBACK;
