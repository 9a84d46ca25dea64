-- Under REPEATABLE READ or SERIALIZABLE every statement of a claim reads its transaction's
-- snapshot, which cannot see a pause, nor a limited queue's claims, that committed after it was
-- taken: claim_job refuses such a transaction with JOB.CLAIM_ISOLATION (JQ205), whatever the
-- queue, before it takes a slot or a row. (That a pause committed after the snapshot holds is
-- proven with two sessions in sql/claim_promises_test.go.)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q) FROM unnest(ARRAY['pgtap_limited', 'pgtap_plain']) AS q, generate_series(1, 20);
SELECT jobq.set_concurrency_limit('pgtap_limited', 200);

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_plain'], 10)$$, 'JQ205', NULL,
                 'a claim of a queue without limits is refused under REPEATABLE READ');
SELECT throws_ok($$SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_limited'], 10)$$, 'JQ205', NULL,
                 'so is a claim of a limited queue that would be shared');
SELECT throws_ok($$SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_limited'], 17)$$, 'JQ205', NULL,
                 'and one that would take the queue''s lock alone');
SELECT throws_like($$SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_plain'], 1)$$,
                   'JOB.CLAIM_ISOLATION: claim_job runs under READ COMMITTED, not REPEATABLE READ%',
                   'the message names the code and the isolation level');
RESET ROLE;
SELECT is((SELECT count(*) FROM pg_locks l
           WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.classid BETWEEN 1785684593 AND 1785684601), 0::bigint,
          'no slot and no queue lock is held');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state <> 'queued'), 0::bigint, 'every job is still queued');
SELECT results_eq(
    $$ SELECT e.err_state, split_part(e.err_message, ':', 1), e.err_hint
       FROM jobq_test.error_fields($q$SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_plain'], 1)$q$) AS e $$,
    $$ SELECT sqlstate, code, hint FROM jobq.error_codes WHERE code = 'JOB.CLAIM_ISOLATION' $$,
    'the caller sees the catalogued SQLSTATE, code and hint');

SELECT * FROM finish();
ROLLBACK;
