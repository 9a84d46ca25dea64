-- A slot holder's claims are invisible to the other slot holders until it commits, and a shared
-- claim's ceiling leaves room for one batch (16) per other holder. So a transaction that claims a
-- limited queue several times takes, through its shared claims, 16 jobs in all until it commits:
-- its later claims of the queue stay shared (taking the queue's lock alone would wait for the
-- other holders while they may wait for it) and yield what is left of its batch, then nothing.
-- Another queue is claimed as ever.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q) FROM unnest(ARRAY['pgtap_limited', 'pgtap_plain']) AS q, generate_series(1, 100);
SELECT jobq.set_concurrency_limit('pgtap_limited', 300);

SET LOCAL ROLE worker_runtime;
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_limited'], 10)), 10::bigint,
          'a first shared claim of 10 takes 10');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_limited'], 10)), 6::bigint,
          'a second claim of 10 takes the 6 left of the batch');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_limited'], 10)), 0::bigint,
          'a third takes nothing');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_limited'], 100)), 0::bigint,
          'nor does a claim of 100, which would otherwise take the queue''s lock alone');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_limited', 'pgtap_plain'], 30)), 30::bigint,
          'a claim listing another queue takes its jobs from that queue');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE queue = 'pgtap_limited' AND state = 'running'), 16::bigint,
          '16 jobs of the limited queue run');
SELECT is((SELECT count(*) FROM pg_locks l
           WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.classid = 1785684593 AND l.mode = 'ExclusiveLock'), 0::bigint,
          'the queue''s lock was never taken alone');

SELECT * FROM finish();
ROLLBACK;
