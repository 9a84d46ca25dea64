BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

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
