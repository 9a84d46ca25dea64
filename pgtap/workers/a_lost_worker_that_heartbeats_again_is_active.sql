-- A worker marked lost (a long GC pause, a network partition) that heartbeats again is active
-- again and may claim; the leases it had were rescued meanwhile and their tokens stay refused.
BEGIN;
SELECT plan(4);

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
