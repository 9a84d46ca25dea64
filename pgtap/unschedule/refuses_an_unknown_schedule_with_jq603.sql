-- unschedule of a name no schedule has is refused with JQ603 (JOB.UNKNOWN_SCHEDULE); it removes
-- and audits nothing.
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
SELECT FROM jobq.define_task('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick');
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT throws_ok($$ SELECT jobq.unschedule('pgtap-nope') $$, 'JQ603', 'JOB.UNKNOWN_SCHEDULE: schedule ''pgtap-nope''',
    'an unknown name is refused with JQ603');
SELECT throws_ok($$ SELECT jobq.unschedule(NULL) $$, 'JQ603', NULL, 'a NULL name is refused with JQ603');
SELECT is((SELECT count(*) FROM jobq.schedules), 1::bigint, 'the existing schedule is untouched');
SELECT is_empty($$ SELECT * FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before) $$, 'nothing was audited');

SELECT * FROM finish();
ROLLBACK;
