BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named SELECT 'job' || i, jobq.enqueue('t', queue => 'q') FROM generate_series(1, 3) AS i;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 3);
SELECT is((SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c)) WHERE outcome = 'succeeded'),
          3::bigint, 'setup: three jobs succeeded');
-- Backdate (superuser): 8 days, 6 days and 1 hour ago; retention is 7 days.
UPDATE jobq.job_history h SET finished_at = now() - x.age
FROM named n JOIN (VALUES ('job1', interval '8 days'), ('job2', interval '6 days'), ('job3', interval '1 hour')) AS x(name, age) ON x.name = n.name
WHERE h.id = n.id;

SELECT is(jobq.prune_history(), 1::bigint, 'prune_history deletes the row that finished more than history_retention (7 days) ago and returns 1');
SELECT set_eq($$ SELECT n.name FROM jobq.job_history h JOIN named n ON n.id = h.id $$, $$ VALUES ('job2'), ('job3') $$,
              'rows newer than history_retention are kept');

SELECT is(jobq.set_setting('history_retention', '5 days'), '5 days', 'setup: history_retention shortened to 5 days');
SELECT is(jobq.prune_history(), 1::bigint, 'with a shorter retention the 6-day-old row is pruned too');
SELECT set_eq($$ SELECT n.name FROM jobq.job_history h JOIN named n ON n.id = h.id $$, $$ VALUES ('job3') $$,
              'only the recent row is left');

SELECT * FROM finish();
ROLLBACK;
