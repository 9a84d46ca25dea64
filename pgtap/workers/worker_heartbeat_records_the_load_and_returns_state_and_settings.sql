-- A runner heartbeats every worker_heartbeat_interval: jobq.worker_heartbeat records the time and
-- its load (the number of jobs it is running) and returns its state — what it must do — and the
-- settings, so an operator's drain or detach and a changed setting reach it within one heartbeat.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
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
