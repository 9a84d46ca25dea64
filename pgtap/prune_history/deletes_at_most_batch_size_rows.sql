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

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 5) $$, 'setup: five jobs');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 5);
SELECT is((SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c)) WHERE outcome = 'succeeded'),
          5::bigint, 'setup: five jobs succeeded');
UPDATE jobq.job_history SET finished_at = now() - interval '30 days' WHERE id IN (SELECT id FROM c);

SELECT is(jobq.prune_history(2), 2::bigint, 'prune_history(2) deletes two of five old rows');
SELECT is(jobq.prune_history(2), 2::bigint, 'the next call deletes two more');
SELECT is(jobq.prune_history(2), 1::bigint, 'the next call deletes the last one and returns less than batch_size');
SELECT is(jobq.prune_history(2), 0::bigint, 'then there is nothing left to prune');

SELECT * FROM finish();
ROLLBACK;
