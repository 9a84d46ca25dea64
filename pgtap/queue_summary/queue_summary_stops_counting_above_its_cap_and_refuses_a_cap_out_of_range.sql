-- jobq.queue_summary(cap) stops each count at cap + 1, so that an overview of millions of jobs
-- reads at most cap + 1 index entries per count; a cap outside 1..1000000 is refused.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.jobs (task, queue, run_at, state, max_attempts)
SELECT 'pgtap-t', 'pgtap_cap', now() - interval '1 minute', 'queued', 3 FROM generate_series(1, 7);

SELECT is((SELECT due FROM jobq.queue_summary(3) WHERE queue = 'pgtap_cap'), 4::bigint,
          'with cap 3, seven due jobs count as 4: more than the cap');
SELECT is((SELECT due FROM jobq.queue_summary(7) WHERE queue = 'pgtap_cap'), 7::bigint,
          'with cap 7, seven due jobs count exactly');
SELECT is((SELECT due FROM jobq.queue_summary(NULL) WHERE queue = 'pgtap_cap'), 7::bigint,
          'a NULL cap is the default, 10000');
SELECT throws_like($$ SELECT * FROM jobq.queue_summary(0) $$, 'JOB.OUT_OF_RANGE: cap 0 is outside 1..1000000%',
          'a cap of 0 is refused with JOB.OUT_OF_RANGE');
SELECT throws_like($$ SELECT * FROM jobq.queue_summary(1000001) $$, 'JOB.OUT_OF_RANGE: cap 1000001 is outside 1..1000000%',
          'a cap above 1000000 is refused with JOB.OUT_OF_RANGE');

SELECT * FROM finish();
ROLLBACK;
