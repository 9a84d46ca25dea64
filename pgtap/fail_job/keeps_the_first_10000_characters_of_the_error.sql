BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c1), (SELECT lease_token FROM c1), repeat('a', 10000) || repeat('b', 5000)), 'retry_pending',
          'fail_job accepts a 15,000-character error');
SELECT is((SELECT last_error FROM jobq.jobs WHERE id = (SELECT id FROM job)), repeat('a', 10000),
          'last_error keeps the first 10,000 characters');

SELECT * FROM finish();
ROLLBACK;
