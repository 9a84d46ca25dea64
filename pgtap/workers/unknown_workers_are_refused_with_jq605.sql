-- worker_heartbeat, drain_worker, resume_worker and detach_worker refuse a worker id that is not
-- registered with JQ605 (JOB.UNKNOWN_WORKER), and audit nothing. (A NULL or blank id is an invalid
-- argument: worker_functions_refuse_a_null_or_blank_worker_id_and_write_nothing.sql.)
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 1);
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT throws_ok($$ SELECT * FROM jobq.worker_heartbeat('pgtap-nope', 1) $$, 'JQ605',
    'JOB.UNKNOWN_WORKER: worker ''pgtap-nope'' is not registered', 'a heartbeat from an unknown worker is refused with JQ605');
SELECT throws_ok($$ SELECT jobq.drain_worker('pgtap-nope') $$, 'JQ605',
    'JOB.UNKNOWN_WORKER: worker ''pgtap-nope'' is not registered', 'drain_worker refuses an unknown worker');
SELECT throws_ok($$ SELECT jobq.resume_worker('pgtap-nope') $$, 'JQ605', NULL, 'resume_worker refuses an unknown worker');
SELECT throws_ok($$ SELECT jobq.detach_worker('pgtap-nope') $$, 'JQ605', NULL, 'detach_worker refuses an unknown worker');
SELECT throws_ok($$ SELECT jobq.detach_worker('pgtap-w1 ') $$, 'JQ605', NULL,
    'detach_worker refuses an id that differs from a registered one by a trailing space');
SELECT is_empty($$ SELECT * FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before) $$, 'nothing was audited');

SELECT * FROM finish();
ROLLBACK;
