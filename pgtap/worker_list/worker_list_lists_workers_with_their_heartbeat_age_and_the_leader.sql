-- jobq.worker_list(state) lists the workers, oldest start first, with how long since each one's
-- heartbeat and whether it leads; state narrows it.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT FROM jobq.register_worker('w-a', 'node', 1, ARRAY['q'], 2, 'v', NULL);
SELECT FROM jobq.register_worker('w-b', 'node', 2, ARRAY['q'], 2, 'v', ARRAY['t']);
UPDATE jobq.workers SET started_at = now() - interval '1 hour', heartbeat_at = now() - interval '10 seconds' WHERE id = 'w-a';
SELECT FROM jobq.acquire_leadership('w-a', interval '15 seconds');
SELECT jobq.drain_worker('w-b');

SELECT results_eq($$ SELECT id, state, tasks, heartbeat_age >= interval '10 seconds', leader FROM jobq.worker_list() $$,
    $$ VALUES ('w-a'::text, 'active'::text, NULL::text[], true, true), ('w-b', 'draining', ARRAY['t'], false, false) $$,
    'every worker, oldest start first, with its heartbeat age and the leader');
SELECT results_eq($$ SELECT id FROM jobq.worker_list('draining') $$, $$ VALUES ('w-b'::text) $$, 'state narrows it');
SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT * FROM jobq.worker_list() $$, '42501', NULL, 'an application may not list the workers');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
