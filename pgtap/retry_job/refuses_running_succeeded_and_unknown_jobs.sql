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

CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;
CREATE TEMP TABLE jobs AS SELECT jobq.enqueue('t', queue => 'q') AS running, jobq.enqueue('t', queue => 'q2') AS done;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q', 'q2'], 2);
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT done FROM jobs), (SELECT lease_token FROM c WHERE queue = 'q2')),
                'setup: one job succeeded, the other runs');
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs;

SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT running FROM jobs)),
    'JQ203', format('JOB.STATE_CONFLICT: job %s is running; cancel it first or wait for it to end', (SELECT running FROM jobs)),
    'retry_job refuses a running job with JQ203');
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT done FROM jobs)),
    'JQ203', format('JOB.STATE_CONFLICT: job %s succeeded; enqueue a new job to run it again', (SELECT done FROM jobs)),
    'retry_job refuses a succeeded job with JQ203');
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT done FROM jobs) + 1000000),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT done FROM jobs) + 1000000),
    'retry_job refuses an unknown id with JQ202');
SELECT is_empty($$ SELECT * FROM jobq.jobs EXCEPT SELECT * FROM snapshot $$, 'the refused retries changed no live job');
SELECT is((SELECT count(*) FROM jobq.audit_log WHERE action = 'retry_job' AND id > (SELECT id FROM audit_before)), 0::bigint, 'the refused retries wrote no audit row');

SELECT * FROM finish();
ROLLBACK;
