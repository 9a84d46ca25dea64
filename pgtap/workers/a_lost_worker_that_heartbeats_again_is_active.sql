-- A worker marked lost (a long GC pause, a network partition) that heartbeats again is active
-- again and may claim; the leases it had were rescued meanwhile and their tokens stay refused.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['pgtap_q'], 8);
SELECT FROM jobq.enqueue('pgtap-t', queue => 'pgtap_q');
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_q'], 1, '10 minutes');
UPDATE jobq.workers SET heartbeat_at = now() - interval '1 minute';
SELECT is(jobq._maintain(NULL, NULL, now()) -> 'lost_workers', '["pgtap-w1"]'::jsonb, 'setup: the worker was marked lost');

SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-w1', 1)), 'active', 'its next heartbeat says active');
SELECT results_eq($$ SELECT state, state_changed_at, heartbeat_at FROM jobq.workers $$, $$ VALUES ('active'::text, now(), now()) $$,
                  'it is recorded active again, as of this heartbeat');
SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM claimed), (SELECT lease_token FROM claimed)), 'JQ201', NULL,
                 'the lease it had stays lost: its late complete is refused');

SELECT * FROM finish();
ROLLBACK;
