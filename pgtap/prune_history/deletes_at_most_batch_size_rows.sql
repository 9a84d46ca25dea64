BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

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
