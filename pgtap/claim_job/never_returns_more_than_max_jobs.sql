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

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 10) $$, 'setup: ten jobs in q');
SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q2') FROM generate_series(1, 4) $$, 'setup: four jobs in q2');

SELECT is((SELECT count(*) FROM jobq.claim_job('w', ARRAY['q'], 3)), 3::bigint, 'claim_job returns max_jobs jobs when more are due');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'running'), 3::bigint, 'and marks only those running');
SELECT is((SELECT count(*) FROM jobq.claim_job('w', ARRAY['q', 'q2'], 9)), 9::bigint,
          'across queues, claim_job still stops at max_jobs (7 from q, 2 from q2)');
SELECT is((SELECT count(*) FROM jobq.claim_job('w', ARRAY['q', 'q2'], 100)), 2::bigint,
          'with fewer jobs due than max_jobs, claim_job returns what is due');

SELECT * FROM finish();
ROLLBACK;
