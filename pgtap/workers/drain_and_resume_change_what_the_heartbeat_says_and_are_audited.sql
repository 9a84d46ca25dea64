-- An operator drains a worker: at its next heartbeat it reads draining, stops claiming and
-- finishes the jobs it holds (their leases are left alone). resume_worker undoes it: active
-- again. Each is one audited call (the worker and the state it had).
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 4242, ARRAY['pgtap_q'], 8);
SELECT FROM jobq.enqueue('pgtap-t', queue => 'pgtap_q');
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_q'], 1, '10 minutes');
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT lives_ok($$ SELECT jobq.drain_worker('pgtap-w1') $$, 'drain_worker drains an active worker');
SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-w1', 1)), 'draining', 'its next heartbeat says draining');
SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-w1', 1)), 'draining', 'and keeps saying so');
SELECT results_eq($$ SELECT state, lease_token, lease_expires_at FROM jobq.jobs $$,
                  $$ SELECT 'running'::text, lease_token, lease_expires_at FROM claimed $$,
                  'the job it holds keeps running under its lease');
SELECT lives_ok($$ SELECT jobq.resume_worker('pgtap-w1') $$, 'resume_worker undoes the drain');
SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-w1', 1)), 'active', 'the next heartbeat says active');
SELECT results_eq(
    $$ SELECT action, job_id, detail, actor FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before) ORDER BY id $$,
    $$ VALUES ('drain_worker'::text, NULL::bigint, '{"worker_id": "pgtap-w1", "previous_state": "active", "state": "draining"}'::jsonb, session_user::text COLLATE "default"),
              ('resume_worker', NULL, '{"worker_id": "pgtap-w1", "previous_state": "draining", "state": "active"}', session_user::text) $$,
    'the drain and the resume are audited, each with the worker, the state it had and who did it');

SELECT * FROM finish();
ROLLBACK;
