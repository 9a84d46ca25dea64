-- A runner heartbeats every worker_heartbeat_interval: jobq.worker_heartbeat records the time and
-- its load (the number of jobs it is running) and returns its state — what it must do — and the
-- settings, so an operator's drain or detach and a changed setting reach it within one heartbeat.
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
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 4242, ARRAY['default'], 8);
UPDATE jobq.workers SET heartbeat_at = now() - interval '10 seconds';

SELECT results_eq($$ SELECT state, settings FROM jobq.worker_heartbeat('pgtap-w1', 3) $$,
                  $$ SELECT 'active'::text, jsonb_object_agg(name, value) FROM jobq.settings $$,
                  'the heartbeat returns the worker''s state, active, and every setting');
SELECT results_eq($$ SELECT running, heartbeat_at, state FROM jobq.workers $$, $$ VALUES (3, now(), 'active'::text) $$,
                  'it records the load (3 running) and the time of the heartbeat');
SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-w1')), 'active', 'the load defaults to 0');
SELECT is((SELECT running FROM jobq.workers), 0, 'and is recorded as 0');

SELECT * FROM finish();
ROLLBACK;
