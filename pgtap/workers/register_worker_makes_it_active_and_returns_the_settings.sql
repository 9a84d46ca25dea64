-- A runner registers at start-up: jobq.register_worker records its node, pid, queues, concurrency
-- and version as an active worker and returns the settings it applies, as {name: value}. A
-- worker that registers again (a restart under the same id) is active again with its new details.
-- A missing id, node or queue list, or a concurrency below 1, is refused with JQ100.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();

SELECT is(jobq.register_worker('pgtap-w1', 'node-a', 4242, ARRAY['default', 'mail'], 8, 'v1.2.3'),
          (SELECT jsonb_object_agg(name, value) FROM jobq.settings), 'register_worker returns every setting as {name: value}');
SELECT results_eq(
    $$ SELECT id, node, pid, queues, concurrency, version, running, state, started_at, heartbeat_at, state_changed_at FROM jobq.workers $$,
    $$ VALUES ('pgtap-w1'::text, 'node-a'::text, 4242, ARRAY['default', 'mail'], 8, 'v1.2.3'::text, 0, 'active'::text, now(), now(), now()) $$,
    'the worker is recorded as active, with its node, pid, queues, concurrency and version, heartbeating now');
SELECT results_eq(
    $$ SELECT r ->> 'poll_interval', r ->> 'worker_heartbeat_interval', r ->> 'worker_timeout', r ->> 'leader_ttl', r ->> 'maintain_interval'
       FROM jobq.register_worker('pgtap-w2', 'node-b', NULL, ARRAY['default'], 1) AS r $$,
    $$ VALUES ('1 second'::text, '5 seconds'::text, '30 seconds'::text, '15 seconds'::text, '1 second'::text) $$,
    'the settings include the runner''s intervals: poll, heartbeat, worker timeout, leader ttl, maintain');

SELECT FROM jobq.deregister_worker('pgtap-w1');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-c', 5151, ARRAY['default'], 2, 'v1.3.0');
SELECT results_eq($$ SELECT node, pid, queues, concurrency, version, state FROM jobq.workers WHERE id = 'pgtap-w1' $$,
                  $$ VALUES ('node-c'::text, 5151, ARRAY['default'], 2, 'v1.3.0'::text, 'active'::text) $$,
                  'registering again under the same id makes the worker active with its new details');
SELECT is((SELECT count(*) FROM jobq.workers), 2::bigint, 'one row per worker id');

SELECT throws_ok($$ SELECT jobq.register_worker(' ', 'node-a', 1, ARRAY['default'], 1) $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: worker_id, node, queues (non-empty) and concurrency (>= 1) are required', 'a blank worker id is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.register_worker('pgtap-w3', NULL, 1, ARRAY['default'], 1) $$, 'JQ100', NULL, 'a NULL node is refused');
SELECT throws_ok($$ SELECT jobq.register_worker('pgtap-w3', 'node-a', 1, ARRAY[]::text[], 1) $$, 'JQ100', NULL, 'an empty queue list is refused');
SELECT throws_ok($$ SELECT jobq.register_worker('pgtap-w3', 'node-a', 1, ARRAY['default'], 0) $$, 'JQ100', NULL, 'a concurrency of 0 is refused');

SELECT * FROM finish();
ROLLBACK;
