-- Transactional completion: complete_job (and complete_jobs) called inside the caller's own
-- transaction, beside its business write, commits or rolls back with it. A rolled-back
-- completion leaves the job running under its lease and the business write undone; a stale
-- token refuses the completion (JOB.LEASE_LOST), which rolls the business write back with it.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q');
CREATE TEMP TABLE c AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1);
CREATE TEMP TABLE effects (job_id bigint PRIMARY KEY, n integer NOT NULL);

-- The handler's transaction, rolled back (a savepoint stands for it inside the test's own).
SAVEPOINT handler;
INSERT INTO effects SELECT id, 1 FROM c;
SELECT lives_ok($$ SELECT jobq.complete_job((SELECT id FROM c), (SELECT lease_token FROM c)) $$,
                'complete_job completes inside the caller''s transaction');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM c)), 'succeeded', 'the transaction sees the job succeeded');
ROLLBACK TO SAVEPOINT handler;
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM c)), 'running',
          'rolled back: the job still runs under its lease');
SELECT is_empty($$ SELECT * FROM effects $$, 'rolled back: the business write is undone with it');

-- A stale token: the completion is refused and the transaction rolls back as a whole.
SAVEPOINT handler;
INSERT INTO effects SELECT id, 1 FROM c;
SELECT throws_ok($$ SELECT jobq.complete_job((SELECT id FROM c), gen_random_uuid()) $$, 'JQ201', NULL,
                 'a stale lease token is refused (JOB.LEASE_LOST)');
ROLLBACK TO SAVEPOINT handler;

-- Committed (the savepoint released): both hold.
SAVEPOINT handler;
INSERT INTO effects SELECT id, 1 FROM c;
SELECT results_eq($$ SELECT outcome FROM jobq.complete_jobs(ARRAY[(SELECT id FROM c)], ARRAY[(SELECT lease_token FROM c)]) $$,
                  ARRAY['succeeded'], 'complete_jobs completes inside the caller''s transaction too');
RELEASE SAVEPOINT handler;
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM c)), 'succeeded', 'committed: the job succeeded');
SELECT is((SELECT n FROM effects WHERE job_id = (SELECT id FROM c)), 1, 'committed: the business write holds, once');

SELECT * FROM finish();
ROLLBACK;
