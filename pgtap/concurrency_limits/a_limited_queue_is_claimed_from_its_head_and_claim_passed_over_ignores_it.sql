-- A queue with a concurrency limit is claimed from its head whatever the position the runner
-- passes: a job that a full limit made an earlier claim skip is taken as soon as a slot frees,
-- even when it sorts before the position. claim_passed_over therefore never reports a limited
-- queue (the runner would claim from the head once a second for a job its limits hold back), and
-- reports the same queue again once the limit is removed.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
-- c1's jobs first in claim order, then c2's.
SELECT jobq.enqueue('pgtap-x', jsonb_build_object('customerId', c), queue => 'pgtap_q', run_at => now() - make_interval(mins => m))
FROM (VALUES ('c1', 5), ('c1', 4), ('c2', 3), ('c2', 2)) AS v(c, m);
SELECT jobq.set_partition_concurrency_limit('pgtap_q', 'customerId', 1);

CREATE TEMP TABLE first_claim AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 10);
SELECT is((SELECT count(*) FROM first_claim), 2::bigint, 'the first claim takes c1''s first job and c2''s first job');
-- The runner's position: the last job it claimed (c2's first), after c1's second job, which waits.
CREATE TEMP TABLE pos AS SELECT priority::integer AS priority, run_at, id FROM first_claim ORDER BY run_at DESC, id DESC LIMIT 1;
SELECT is(jobq.claim_passed_over(ARRAY['pgtap_q'], ARRAY[(SELECT priority FROM pos)], ARRAY[(SELECT run_at FROM pos)], ARRAY[(SELECT id FROM pos)]),
          false, 'claim_passed_over does not report the job the limit holds back');
SELECT jobq.complete_job(id, lease_token) FROM first_claim WHERE payload ->> 'customerId' = 'c1';
SELECT results_eq(
    $$ SELECT payload ->> 'customerId', run_at < (SELECT run_at FROM pos)
       FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 10, '30 seconds',
                           ARRAY[(SELECT priority FROM pos)], ARRAY[(SELECT run_at FROM pos)], ARRAY[(SELECT id FROM pos)]) $$,
    $$ VALUES ('c1'::text, true) $$,
    'a claim after the position still takes c1''s second job, which sorts before it, once c1''s slot is free');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'running'), 2::bigint, 'one job of each customer runs');
SELECT jobq.set_partition_concurrency_limit('pgtap_q', NULL, NULL);
UPDATE jobq.jobs SET state = 'queued', counted = false, lease_token = NULL, locked_by = NULL, lease_expires_at = NULL, deadline_at = NULL
WHERE state = 'running' AND payload ->> 'customerId' = 'c1';
SELECT is(jobq.claim_passed_over(ARRAY['pgtap_q'], ARRAY[(SELECT priority FROM pos)], ARRAY[(SELECT run_at FROM pos)], ARRAY[(SELECT id FROM pos)]),
          true, 'without the limit, the same waiting job before the position is reported');

SELECT * FROM finish();
ROLLBACK;
