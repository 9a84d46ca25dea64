-- jobq_test.reset() leaves no attempt behind, like the other jobq tables.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT jobq.enqueue('t', queue => 'q');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT FROM jobq.fail_job((SELECT id FROM c), (SELECT lease_token FROM c), 'boom');
SELECT isnt_empty($$ SELECT 1 FROM jobq.job_attempts $$, 'setup: an attempt');
SELECT jobq_test.reset();
SELECT is_empty($$ SELECT 1 FROM jobq.job_attempts $$, 'reset() deletes it');

SELECT * FROM finish();
ROLLBACK;
