-- An operator drains a worker: at its next heartbeat it reads draining, stops claiming and
-- finishes the jobs it holds (their leases are left alone). resume_worker undoes it: active
-- again. Each is one audited call (the worker and the state it had).
BEGIN;
SELECT plan(7);

-- Known state, whatever database this runs in: no jobs, no schedules (nor, by cascade, their
-- runs), no workers, nobody leading (epoch 0), settings at their migration defaults. Everything
-- is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
DELETE FROM jobq.schedules;
DELETE FROM jobq.workers;
UPDATE jobq.leader SET holder = NULL, epoch = 0, acquired_at = NULL, lease_expires_at = NULL;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds'), ('worker_heartbeat_interval', '5 seconds'),
             ('worker_timeout', '30 seconds'), ('leader_ttl', '15 seconds'), ('maintain_interval', '1 second'),
             ('poll_interval', '1 second')) AS d(name, value)
WHERE s.name = d.name;
SELECT FROM jobq.define_task('pgtap-t');
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
