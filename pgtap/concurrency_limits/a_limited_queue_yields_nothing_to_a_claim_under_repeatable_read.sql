-- Under REPEATABLE READ (or SERIALIZABLE) a claim would count a limited queue's running jobs in
-- its transaction's snapshot, older than the queue's lock: it takes nothing from a limited queue,
-- whether its batch would be shared or not, and takes no slot; a queue without limits is claimed
-- as ever.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q) FROM unnest(ARRAY['pgtap_limited', 'pgtap_plain']) AS q, generate_series(1, 20);
SELECT jobq.set_concurrency_limit('pgtap_limited', 200);

SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_limited'], 10)), 0::bigint,
          'a claim of 10 (a shared batch) takes nothing from the limited queue');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_limited'], 17)), 0::bigint,
          'nor does a claim of 17');
SELECT is((SELECT count(*) FROM pg_locks l
           WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.classid BETWEEN 1785684594 AND 1785684601), 0::bigint,
          'no slot is held');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_plain'], 10)), 10::bigint,
          'a queue without limits yields its jobs');

SELECT * FROM finish();
ROLLBACK;
