-- The issue's example scaled down: in one queue and priority, one store with 2,000 due jobs
-- enqueued first, nine stores with 10 each and 10 system jobs (one more store: ten small stores).
-- With fair claiming
-- on, one-job claims and batches alike take every job of the small stores and the system jobs
-- within the first 110 claimed, each store's jobs in their own claim order; without it, the first
-- 110 are all the big store's.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 3, now() - interval '1 hour' FROM generate_series(1, 2000);
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', format('%s0000000-0000-0000-0000-000000000000', s)::uuid, 3, now() - interval '1 minute' * n
FROM generate_series(1, 9) AS s, generate_series(1, 10) AS n;
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', NULL, 3, now() FROM generate_series(1, 10);

SELECT is(jobq.set_fair_claiming('pgtap_q', true), true, 'fair claiming is turned on');

CREATE TEMP TABLE got (n serial, id bigint, store_id uuid);
-- Forty one-job claims, then seven batches of 10 (110 jobs in all), then one of 100.
DO $$
BEGIN
    FOR i IN 1 .. 40 LOOP
        INSERT INTO got (id, store_id) SELECT c.id, c.store_id FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1) AS c;
    END LOOP;
    FOR i IN 1 .. 7 LOOP
        INSERT INTO got (id, store_id) SELECT c.id, c.store_id FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 10) AS c;
    END LOOP;
    INSERT INTO got (id, store_id) SELECT c.id, c.store_id FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 100) AS c;
END
$$;
SELECT is((SELECT count(*) FROM got), 210::bigint, 'every claim took as many jobs as it asked for');
SELECT is((SELECT count(*) FROM got WHERE n <= 110 AND store_id IS DISTINCT FROM 'ffffffff-ffff-ffff-ffff-ffffffffffff'), 100::bigint,
          'the 100 small-store and system jobs are all among the first 110 claimed (10 of the big store''s beside them)');
SELECT is((SELECT count(*) FROM got WHERE n <= 11 AND store_id IS NULL), 1::bigint, 'the system jobs are one more store: one in each turn');
SELECT results_eq($$ SELECT id FROM got WHERE store_id = '10000000-0000-0000-0000-000000000000' AND n <= 40 ORDER BY n $$,
                  $$ SELECT id FROM jobq.jobs WHERE store_id = '10000000-0000-0000-0000-000000000000' ORDER BY run_at, id LIMIT 4 $$,
                  'one job a claim: a store''s jobs come in their claim order, one a turn (four in forty claims of eleven stores)');

SELECT jobq.set_fair_claiming('pgtap_q', false);
UPDATE jobq.jobs SET state = 'queued', attempt = 0, lease_token = NULL, lease_expires_at = NULL, deadline_at = NULL,
                     locked_by = NULL, claimed_at = NULL, heartbeat_at = NULL
WHERE state = 'running';
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 110) AS c
           WHERE c.store_id IS DISTINCT FROM 'ffffffff-ffff-ffff-ffff-ffffffffffff'), 0::bigint,
          'turned off, the queue is claimed in plain order again: 110 jobs of the big store');

SELECT * FROM finish();
ROLLBACK;
