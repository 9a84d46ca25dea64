-- A receipt is due no later than the leases it lists (trigger jobs_lease_shortened): a heartbeat
-- with a shorter lease, a worker's leases released, a detach's confirmation deadline, or a lease
-- written earlier by hand each move the receipts of the job's worker that list it; a heartbeat
-- that extends a lease moves nothing.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT count(jobq.enqueue('t', queue => 'q')) FROM generate_series(1, 4);
CREATE TEMP TABLE c AS SELECT id, lease_token FROM jobq.claim_job('w', ARRAY['q'], 2, '10 minutes');
CREATE TEMP TABLE d AS SELECT id, lease_token FROM jobq.claim_job('w', ARRAY['q'], 2, '10 minutes');

SELECT is((SELECT count(*) FROM jobq.heartbeat_jobs('w', (SELECT array_agg(id) FROM c), (SELECT array_agg(lease_token) FROM c), '1 hour')),
          2::bigint, 'setup: a heartbeat extends two leases');
SELECT is((SELECT array_agg(check_at ORDER BY check_at) FROM jobq.leases),
          ARRAY[now() + interval '10 minutes', now() + interval '10 minutes'], 'a longer lease leaves both receipts');

SELECT is((SELECT count(*) FROM jobq.heartbeat_jobs('w', (SELECT array_agg(id) FROM c), (SELECT array_agg(lease_token) FROM c), '30 seconds')),
          2::bigint, 'setup: a heartbeat with a shorter lease');
SELECT results_eq(
    $$ SELECT (SELECT array_agg(id ORDER BY id) FROM c) = l.job_ids, l.check_at FROM jobq.leases l ORDER BY l.check_at $$,
    $$ VALUES (true, now() + interval '30 seconds'), (false, now() + interval '10 minutes') $$,
    'moves the receipt listing those jobs to the new end, not the other');

UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 second' WHERE id = (SELECT min(id) FROM d);
SELECT is((SELECT check_at FROM jobq.leases l WHERE l.job_ids = (SELECT array_agg(id ORDER BY id) FROM d)),
          now() - interval '1 second', 'a lease written earlier by hand moves its receipt too');

SELECT * FROM finish();
ROLLBACK;
