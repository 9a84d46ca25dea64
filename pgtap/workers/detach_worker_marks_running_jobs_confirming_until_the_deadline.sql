-- An operator detaches a worker (seed 002 section 7.3): it stops claiming at its next heartbeat,
-- and each job it runs becomes CONFIRMING until now() + continuation_retry_count x
-- continuation_retry_interval: its lease ends exactly at that deadline, a heartbeat does not
-- extend it, and the sweep does not reassign it before. detach_worker returns how many jobs it
-- marked, NOTIFYs jobq_control and is audited; other workers' jobs are untouched.
BEGIN;
SELECT plan(11);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['pgtap_q'], 8);
SELECT FROM jobq.register_worker('pgtap-w2', 'node-b', 202, ARRAY['pgtap_q'], 8);
SELECT FROM generate_series(1, 4) AS g CROSS JOIN LATERAL jobq.enqueue('pgtap-t', jsonb_build_object('n', g), queue => 'pgtap_q') AS e;
CREATE TEMP TABLE w1_jobs AS SELECT * FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_q'], 2, '10 minutes');
CREATE TEMP TABLE w2_jobs AS SELECT * FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_q'], 1, '10 minutes');
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT is(jobq.detach_worker('pgtap-w1'), 2, 'detach_worker returns the number of jobs it marked CONFIRMING: w1''s two');
SELECT results_eq(
    $$ SELECT id, state, lease_token, lease_expires_at FROM jobq.jobs WHERE id IN (SELECT id FROM w1_jobs) ORDER BY id $$,
    $$ SELECT id, 'running'::text, lease_token, now() + interval '0.9 seconds' FROM w1_jobs ORDER BY id $$,
    'w1''s jobs keep running under their tokens; their leases end at the deadline, now + 3 x 0.3 s');
SELECT results_eq(
    $$ SELECT job_id, lease_token, worker, confirm_by FROM jobq.continuations ORDER BY job_id $$,
    $$ SELECT id, lease_token, 'pgtap-w1'::text, now() + interval '0.9 seconds' FROM w1_jobs ORDER BY id $$,
    'each is CONFIRMING: one jobq.continuations row per lease, with the deadline');
SELECT is_empty(
    $$ SELECT * FROM jobq._rescue(1000, now() + interval '0.8 seconds') $$,
    'the sweep reassigns nothing before the deadline');
SELECT results_eq(
    format('SELECT lease_expires_at FROM jobq.heartbeat_jobs(%L, ARRAY[%s], ARRAY[%L]::uuid[], %L)',
           'pgtap-w1', (SELECT min(id) FROM w1_jobs), (SELECT lease_token FROM w1_jobs ORDER BY id LIMIT 1), '10 minutes'),
    $$ VALUES (now() + interval '0.9 seconds') $$,
    'a heartbeat keeps the lease but does not extend it past the deadline');
SELECT results_eq($$ SELECT id, state, lease_token, lease_expires_at FROM jobq.jobs WHERE id IN (SELECT id FROM w2_jobs) $$,
                  $$ SELECT id, 'running'::text, lease_token, lease_expires_at FROM w2_jobs $$, 'w2''s job is untouched');
SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-w1')), 'detached', 'w1''s next heartbeat says detached');
SELECT results_eq(
    $$ SELECT action, detail - 'confirm_by', actor FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before) ORDER BY id $$,
    $$ VALUES ('detach_worker'::text, '{"worker_id": "pgtap-w1", "previous_state": "active", "state": "detached"}'::jsonb, session_user::text COLLATE "default"),
              ('continuation_requested'::text, jsonb_build_object('worker_id', 'pgtap-w1', 'jobs', (SELECT jsonb_agg(id ORDER BY id) FROM w1_jobs)), session_user::text COLLATE "default") $$,
    'the detach is audited, and so is the continuation it asks for, with its jobs');
SELECT is((SELECT (detail ->> 'confirm_by')::timestamptz FROM jobq.audit_log WHERE action = 'continuation_requested' AND id > (SELECT id FROM audit_before)),
          now() + interval '0.9 seconds', 'with its deadline');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_q'], 10)), 1::bigint,
          'another worker can claim only the job still queued, not w1''s two');
SELECT is(jobq.detach_worker('pgtap-w1'), 0, 'detaching it again marks nothing new and keeps the first deadline');

SELECT * FROM finish();
ROLLBACK;
