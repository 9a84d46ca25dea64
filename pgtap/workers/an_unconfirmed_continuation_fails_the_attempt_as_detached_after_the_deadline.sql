-- A detached worker that does not confirm in time loses its jobs at the deadline: the sweep fails
-- the attempt with reason detached (a jobq.job_attempts row), the job goes back to the queue at
-- once (or dies on its last attempt, returned by maintain for the report), CONFIRMING ends and
-- the expiry is audited. A confirmation that comes too late is answered detached and does the
-- same at once.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['pgtap_q'], 8);
SELECT jobq.enqueue('pgtap-t', '{"n": 1}', queue => 'pgtap_q');
SELECT jobq.enqueue('pgtap-t', '{"n": 2}', queue => 'pgtap_q', max_attempts => 1);
CREATE TEMP TABLE w1_jobs AS SELECT * FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_q'], 2, '10 minutes');
SELECT jobq.set_setting('continuation_retry_count', '1');
SELECT jobq.set_setting('continuation_retry_interval', '1 second');
SELECT jobq.detach_worker('pgtap-w1');
-- The clock moves past the first job's deadline (the second's comes later).
UPDATE jobq.continuations SET confirm_by = now() - interval '1 millisecond' WHERE job_id = (SELECT min(id) FROM w1_jobs);
UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 millisecond' WHERE id = (SELECT min(id) FROM w1_jobs);

SELECT results_eq(
    format('SELECT outcome FROM jobq.confirm_continuation(%L, ARRAY[%s], ARRAY[%L]::uuid[])', 'pgtap-w1',
           (SELECT min(id) FROM w1_jobs), (SELECT lease_token FROM w1_jobs ORDER BY id LIMIT 1)),
    $$ VALUES ('detached'::text) $$, 'a confirmation after the deadline is answered detached');
SELECT results_eq(
    $$ SELECT id, state, reason, lease_token, run_at FROM jobq.jobs WHERE id = (SELECT min(id) FROM w1_jobs) $$,
    $$ SELECT min(id), 'retry_pending'::text, 'detached'::text, NULL::uuid, now() FROM w1_jobs $$,
    'and its job is back in the queue at once, reason detached');
UPDATE jobq.continuations SET confirm_by = now() - interval '1 millisecond' WHERE job_id = (SELECT max(id) FROM w1_jobs);
UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 millisecond' WHERE id = (SELECT max(id) FROM w1_jobs);
SELECT results_eq(
    $$ SELECT m -> 'dead' -> 0 ->> 'job_id', m -> 'dead' -> 0 ->> 'reason', jsonb_array_length(m -> 'dead') FROM jobq.maintain() AS m $$,
    $$ SELECT max(id)::text, 'detached'::text, 1 FROM w1_jobs $$,
    'the sweep takes the other one: on its last attempt it dies, and maintain returns it for the report');
SELECT results_eq(
    $$ SELECT w.id, a.reason, a.worker, a.log_ref FROM w1_jobs w CROSS JOIN LATERAL jobq.job_attempt_list(w.id) a ORDER BY w.id $$,
    $$ SELECT id, 'detached'::text, 'pgtap-w1'::text, format('workerId=pgtap-w1 jobId=%s attempt=1', id) FROM w1_jobs ORDER BY id $$,
    'each failed attempt is recorded with reason detached and a log reference');
SELECT is((SELECT state || '/' || reason FROM jobq.job_history WHERE id = (SELECT max(id) FROM w1_jobs)), 'dead/detached',
          'the dead one is in history as dead, detached');
SELECT is_empty($$ SELECT * FROM jobq.continuations $$, 'CONFIRMING ended for both');
SELECT results_eq($$ SELECT job_id FROM jobq.audit_log WHERE action = 'continuation_expired' ORDER BY job_id $$,
                  $$ SELECT id FROM w1_jobs ORDER BY id $$, 'each expiry is audited');
SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT min(id) FROM w1_jobs), (SELECT lease_token FROM w1_jobs ORDER BY id LIMIT 1)),
                 'JQ201', NULL, 'the worker''s late complete is refused');

SELECT * FROM finish();
ROLLBACK;
