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

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', backoff_base => '1 minute', backoff_max => '90 seconds') AS id;

CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c1), (SELECT lease_token FROM c1), 'x'), 'retry_pending', 'attempt 1 fails');
SELECT ok((SELECT run_at BETWEEN now() + interval '30 seconds' AND now() + interval '60 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          'the job''s own backoff_base (1 minute) replaces the setting (2 seconds): retry within [30 s, 60 s]');

CREATE TEMP TABLE c2 AS SELECT * FROM jobq._claim('w', ARRAY['q'], 1, '30 seconds', now() + interval '1 hour');
SELECT is(jobq.fail_job((SELECT id FROM c2), (SELECT lease_token FROM c2), 'x'), 'retry_pending', 'attempt 2 fails');
SELECT ok((SELECT run_at BETWEEN now() + interval '45 seconds' AND now() + interval '90 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          'the job''s own backoff_max (90 s) caps 2 minutes: retry within [45 s, 90 s]');

SELECT * FROM finish();
ROLLBACK;
