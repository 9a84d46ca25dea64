-- A runner that exits cleanly deregisters: its jobq.workers row becomes stopped and, if it leads,
-- its lease ends now, so another runner takes over at once (with the next epoch) instead of
-- waiting for the lease to lapse. Deregistering another worker leaves the leadership alone.
BEGIN;
SELECT plan(6);

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
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 4);
SELECT FROM jobq.register_worker('pgtap-w2', 'node-b', 202, ARRAY['default'], 4);
SELECT FROM jobq.register_worker('pgtap-w3', 'node-c', 303, ARRAY['default'], 4);

SELECT is(jobq.acquire_leadership('pgtap-w1', '1 hour'), 1::bigint, 'w1 leads with epoch 1, for an hour');
SELECT is(jobq.acquire_leadership('pgtap-w2', '1 hour'), NULL::bigint, 'w2 is refused');
SELECT lives_ok($$ SELECT jobq.deregister_worker('pgtap-w3') $$, 'w3, not leading, deregisters');
SELECT is(jobq.acquire_leadership('pgtap-w2', '1 hour'), NULL::bigint, 'that leaves the leadership with w1');
SELECT lives_ok($$ SELECT jobq.deregister_worker('pgtap-w1') $$, 'w1 deregisters');
SELECT is(jobq.acquire_leadership('pgtap-w2', '1 hour'), 2::bigint, 'w2 takes over at once, with epoch 2');

SELECT * FROM finish();
ROLLBACK;
