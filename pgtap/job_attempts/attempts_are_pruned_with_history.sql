-- Attempts share history's retention: prune_history and maintain delete attempts whose ended_at
-- is before now() - history_retention, in batches, and keep newer ones.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT jobq.enqueue('t', queue => 'q', max_attempts => 5) FROM generate_series(1, 6);
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 6);
SELECT is((SELECT count(*) FROM jobq.fail_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c), ARRAY(SELECT 'boom' FROM c))),
          6::bigint, 'setup: six failed attempts');
UPDATE jobq.job_attempts SET ended_at = now() - interval '30 days' WHERE job_id IN (SELECT id FROM c ORDER BY id LIMIT 5);

SELECT is(jobq.prune_history(2), 0::bigint, 'prune_history still returns the history rows it deleted');
SELECT is((SELECT count(*) FROM jobq.job_attempts), 4::bigint, 'prune_history(2) deleted two old attempts');
SELECT FROM jobq.maintain();
SELECT is((SELECT count(*) FROM jobq.job_attempts), 1::bigint, 'maintain deleted the other old attempts');
SELECT is((SELECT ended_at FROM jobq.job_attempts), now(), 'the recent attempt is kept');

SELECT * FROM finish();
ROLLBACK;
