-- register_worker: worker_id, node, version and each queue at most 200 characters (JQ106); pid
-- not negative, concurrency 1..10000, at most 1000 queues (JQ107), no NULL queue (JQ100).
-- acquire_leadership: ttl at most 1 day. worker_heartbeat: running 0..1000000. Nothing is written.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.register_worker(repeat(md5(random()::text), 100), 'n', 1, ARRAY['q'], 1) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: worker_id is 3200 characters long; the limit is 200', 'a 3200-character worker id is refused');
SELECT throws_ok($$ SELECT jobq.register_worker('w', repeat('n', 201), 1, ARRAY['q'], 1) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: node is 201 characters long; the limit is 200', 'a 201-character node is refused');
SELECT throws_ok($$ SELECT jobq.register_worker('w', 'n', 1, ARRAY['q'], 1, repeat('v', 201)) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: version is 201 characters long; the limit is 200', 'a 201-character version is refused');
SELECT throws_ok($$ SELECT jobq.register_worker('w', 'n', -1, ARRAY['q'], 1) $$,
    'JQ107', 'JOB.OUT_OF_RANGE: pid -1 is outside 0..2147483647', 'a negative pid is refused');
SELECT throws_ok($$ SELECT jobq.register_worker('w', 'n', 1, ARRAY['q'], 10001) $$,
    'JQ107', 'JOB.OUT_OF_RANGE: concurrency 10001 is outside 1..10000', 'a concurrency above 10000 is refused');
SELECT throws_ok($$ SELECT jobq.register_worker('w', 'n', 1, ARRAY['q', NULL], 1) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: queues must not hold NULLs', 'a NULL queue is refused');
SELECT throws_ok($$ SELECT jobq.acquire_leadership('w', '2 days') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: ttl 2 days is above the limit of 1 day', 'a leadership ttl of 2 days is refused');
SELECT throws_ok($$ SELECT * FROM jobq.worker_heartbeat('w', -5) $$,
    'JQ107', 'JOB.OUT_OF_RANGE: running -5 is outside 0..1000000', 'a negative running count is refused');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.workers), (SELECT workers FROM before), 'no worker was registered');

SELECT * FROM finish();
ROLLBACK;
