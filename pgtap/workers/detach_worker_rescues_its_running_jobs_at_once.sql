-- An operator detaches a worker: it stops claiming at its next heartbeat, and every lease it holds
-- is rescued now, without waiting for the leases to expire — its jobs go back to the queue
-- (retry_pending, reason orphaned, due at once) and its tokens stop working, so its late writes
-- are refused. detach_worker returns how many leases it took; it is audited. Other workers' jobs
-- are untouched.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['pgtap_q'], 8);
SELECT FROM jobq.register_worker('pgtap-w2', 'node-b', 202, ARRAY['pgtap_q'], 8);
SELECT FROM generate_series(1, 4) AS g CROSS JOIN LATERAL jobq.enqueue('pgtap-t', jsonb_build_object('n', g), queue => 'pgtap_q') AS e;
CREATE TEMP TABLE w1_jobs AS SELECT * FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_q'], 2, '10 minutes');
CREATE TEMP TABLE w2_jobs AS SELECT * FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_q'], 1, '10 minutes');
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT is(jobq.detach_worker('pgtap-w1'), 2, 'detach_worker returns the number of leases it took: w1''s two');
SELECT results_eq(
    $$ SELECT id, state, reason, lease_token, run_at, attempt FROM jobq.jobs WHERE id IN (SELECT id FROM w1_jobs) ORDER BY id $$,
    $$ SELECT id, 'retry_pending'::text, 'orphaned'::text, NULL::uuid, now(), 1 FROM w1_jobs ORDER BY id $$,
    'w1''s jobs are back in the queue at once: retry_pending, reason orphaned, no lease, due now');
SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT min(id) FROM w1_jobs), (SELECT lease_token FROM w1_jobs ORDER BY id LIMIT 1)),
                 'JQ201', NULL, 'w1''s late complete is refused: its lease token no longer works');
SELECT throws_ok(format('SELECT jobq.heartbeat(%L, %s, %L)', 'pgtap-w1', (SELECT max(id) FROM w1_jobs), (SELECT lease_token FROM w1_jobs ORDER BY id DESC LIMIT 1)),
                 'JQ201', NULL, 'and so is its heartbeat (the runner cancels the handler)');
SELECT results_eq($$ SELECT id, state, lease_token FROM jobq.jobs WHERE id IN (SELECT id FROM w2_jobs) $$,
                  $$ SELECT id, 'running'::text, lease_token FROM w2_jobs $$, 'w2''s job keeps running under its lease');
SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-w1')), 'detached', 'w1''s next heartbeat says detached');
SELECT results_eq(
    $$ SELECT action, detail, actor FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before) $$,
    $$ VALUES ('detach_worker'::text, '{"worker_id": "pgtap-w1", "previous_state": "active", "state": "detached"}'::jsonb, session_user::text COLLATE "default") $$,
    'the detach is audited with the worker, the state it had and who did it');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_q'], 10)), 3::bigint,
          'another worker can claim w1''s two jobs right away (and the one still queued)');
SELECT is(jobq.detach_worker('pgtap-w1'), 0, 'detaching it again takes nothing: it holds no lease');
SELECT is(jobq.detach_worker('pgtap-w2'), 4, 'detaching w2 takes the four it now holds');

SELECT * FROM finish();
ROLLBACK;
