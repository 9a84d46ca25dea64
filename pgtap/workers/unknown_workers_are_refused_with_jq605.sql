-- worker_heartbeat, drain_worker, resume_worker and detach_worker refuse a worker id that is not
-- registered with JQ605 (JOB.UNKNOWN_WORKER), and audit nothing.
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
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 1);
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT throws_ok($$ SELECT * FROM jobq.worker_heartbeat('pgtap-nope', 1) $$, 'JQ605',
    'JOB.UNKNOWN_WORKER: worker ''pgtap-nope'' is not registered', 'a heartbeat from an unknown worker is refused with JQ605');
SELECT throws_ok($$ SELECT jobq.drain_worker('pgtap-nope') $$, 'JQ605',
    'JOB.UNKNOWN_WORKER: worker ''pgtap-nope'' is not registered', 'drain_worker refuses an unknown worker');
SELECT throws_ok($$ SELECT jobq.resume_worker('pgtap-nope') $$, 'JQ605', NULL, 'resume_worker refuses an unknown worker');
SELECT throws_ok($$ SELECT jobq.detach_worker('pgtap-nope') $$, 'JQ605', NULL, 'detach_worker refuses an unknown worker');
SELECT throws_ok($$ SELECT jobq.detach_worker(NULL) $$, 'JQ605', NULL, 'detach_worker refuses a NULL worker');
SELECT is_empty($$ SELECT * FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before) $$, 'nothing was audited');

SELECT * FROM finish();
ROLLBACK;
