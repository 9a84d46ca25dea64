-- Jobs that ran across the upgrade to migration 00036, or that a claim in flight while it
-- committed took with the release before's claim, have no receipt (jobq.leases). While
-- jobq.leases_recheck has its row, jobq.maintain's first look records a horizon, and a look past it
-- writes one receipt per worker for them and deletes the row; the sweep then finds them.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
INSERT INTO jobq.jobs (task, queue, max_attempts, attempt, state, locked_by, lease_token, lease_expires_at) VALUES
    ('t', 'q', 5, 1, 'running', 'old-w', gen_random_uuid(), now() - interval '1 second'),
    ('t', 'q', 5, 1, 'running', 'old-w', gen_random_uuid(), now() + interval '1 hour');
INSERT INTO jobq.leases_recheck DEFAULT VALUES;

SET LOCAL ROLE worker_runtime;
SELECT is((jobq.maintain() ->> 'rescued')::integer, 0, 'without a receipt the expired lease is not found');
RESET ROLE;
SELECT isnt((SELECT after FROM jobq.leases_recheck), NULL, 'the first look recorded its horizon');

UPDATE jobq.leases_recheck SET after = '1'::xid8;
SELECT is(jobq._cover_running_jobs(), 1::bigint, 'a look past it writes one receipt for the worker');
SELECT results_eq(
    $$ SELECT worker_id, cardinality(job_ids), check_at, (SELECT count(*) FROM jobq.leases_recheck) FROM jobq.leases $$,
    $$ VALUES ('old-w'::text, 2, now() - interval '1 second', 0::bigint) $$,
    'listing both jobs, due at the first lease end; the recheck row is gone');
SET LOCAL ROLE worker_runtime;
SELECT is((jobq.maintain() ->> 'rescued')::integer, 1, 'the next sweep takes the expired lease');

SELECT * FROM finish();
ROLLBACK;
