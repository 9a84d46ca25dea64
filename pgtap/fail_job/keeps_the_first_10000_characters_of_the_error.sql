BEGIN;
SELECT plan(2);

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

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c1), (SELECT lease_token FROM c1), repeat('a', 10000) || repeat('b', 5000)), 'retry_pending',
          'fail_job accepts a 15,000-character error');
SELECT is((SELECT last_error FROM jobq.jobs WHERE id = (SELECT id FROM job)), repeat('a', 10000),
          'last_error keeps the first 10,000 characters');

SELECT * FROM finish();
ROLLBACK;
