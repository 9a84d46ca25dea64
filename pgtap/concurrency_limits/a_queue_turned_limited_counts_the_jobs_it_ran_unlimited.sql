-- A limit set on a queue that had none: its running jobs, claimed unlimited, are not flagged
-- counted (nor those of claims in flight, which read it unlimited). The limits count them anyway,
-- through the queue's claim receipts, while jobq.queues.counted_recheck is set; they are flagged
-- (jobq._settle_counted: the queue's next limited claim, or maintain) once every transaction that
-- began before the limit's has ended (counted_recheck_after, set here to a long-past id: this
-- test's own transaction is older than any horizon it could record), and the mark is cleared.
-- Removing the limits clears it without a look at the jobs.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT count(jobq.enqueue('t', queue => 'q')) FROM generate_series(1, 6);
SELECT is((SELECT count(*) FROM jobq.claim_job('w', ARRAY['q'], 3)), 3::bigint, 'setup: three jobs run, claimed unlimited');

SELECT is(jobq.set_concurrency_limit('q', 3), true, 'setup: the queue turns limited at 3');
SELECT results_eq($$ SELECT counted_recheck, counted_recheck_after > pg_current_xact_id() FROM jobq.queues WHERE name = 'q' $$,
                  $$ VALUES (true, true) $$, 'the queue is marked, with a horizon past the setter''s own transaction');
SELECT is((SELECT count(*) FROM jobq.claim_job('w', ARRAY['q'], 3)), 0::bigint,
          'a claim counts the three unflagged running jobs and takes none');
SELECT is((SELECT counted_recheck FROM jobq.queues WHERE name = 'q'), true, 'the horizon not passed, the mark stays');

UPDATE jobq.queues SET counted_recheck_after = '1'::xid8 WHERE name = 'q';
SELECT is(jobq._settle_counted_flags(), 0, 'past the horizon, the settling leaves no queue marked');
SELECT results_eq($$ SELECT counted_recheck, (SELECT count(*) FROM jobq.jobs WHERE counted) FROM jobq.queues WHERE name = 'q' $$,
                  $$ VALUES (false, 3::bigint) $$, 'the three are flagged: the limit counts them through jobs_counted_idx');

SELECT jobq.set_concurrency_limit('q', NULL);
SELECT jobq.set_concurrency_limit('q', 5);
SELECT jobq.set_concurrency_limit('q', NULL);
SELECT is(jobq._settle_counted_flags(), 0, 'a queue whose limits were removed again loses the mark without a look at its jobs');

SELECT * FROM finish();
ROLLBACK;
