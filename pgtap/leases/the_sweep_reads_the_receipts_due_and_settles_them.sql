-- The sweep finds expired leases through the receipts due (jobq.leases): it takes the expired
-- jobs a receipt lists, then each receipt due moves on to the first lease end among its jobs still
-- running under its worker, or goes once none is (completed, swept, or claimed by another worker).
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT count(jobq.enqueue('t', queue => 'q')) FROM generate_series(1, 6);
CREATE TEMP TABLE a AS SELECT id, lease_token FROM jobq.claim_job('w1', ARRAY['q'], 3, '1 minute');
CREATE TEMP TABLE b AS SELECT id, lease_token FROM jobq.claim_job('w2', ARRAY['q'], 3, '1 hour');
GRANT SELECT ON a, b TO worker_runtime;

-- w1 vanished: two of its leases expire; the third was completed.
SELECT is((SELECT outcome FROM jobq.complete_jobs(ARRAY[(SELECT max(id) FROM a)], ARRAY[(SELECT lease_token FROM a WHERE id = (SELECT max(id) FROM a))])),
          'succeeded', 'setup: one of w1''s jobs completes');
SELECT results_eq(
    $$ SELECT job_id, reason FROM jobq._rescue(100, now() + interval '2 minutes') ORDER BY job_id $$,
    $$ SELECT id, 'orphaned'::text FROM a WHERE id < (SELECT max(id) FROM a) ORDER BY id $$,
    'two minutes on, the sweep takes w1''s two expired leases and nothing of w2''s');
SELECT results_eq(
    $$ SELECT worker_id, check_at FROM jobq.leases $$,
    $$ VALUES ('w2'::text, now() + interval '1 hour') $$,
    'w1''s receipt, none of whose jobs runs under w1 any more, is gone; w2''s is not yet due');

-- The swept jobs (due at the sweep's time) are claimed again by w2; w2's first receipt comes due.
UPDATE jobq.jobs SET run_at = now() WHERE state = 'retry_pending';
CREATE TEMP TABLE again AS SELECT id FROM jobq.claim_job('w2', ARRAY['q'], 10, '2 hours');
SELECT is((SELECT count(*) FROM again), 2::bigint, 'setup: w2 claims the two swept jobs again');
SELECT is((SELECT count(*) FROM jobq._rescue(100, now() + interval '90 minutes')), 3::bigint,
          'ninety minutes on, w2''s first three leases are swept, not the two claimed again');
SELECT results_eq(
    $$ SELECT job_ids, check_at FROM jobq.leases $$,
    $$ VALUES ((SELECT array_agg(id ORDER BY id) FROM again), now() + interval '2 hours') $$,
    'the receipt of the second claim stays, due at its leases'' end; the first is gone');

SELECT * FROM finish();
ROLLBACK;
