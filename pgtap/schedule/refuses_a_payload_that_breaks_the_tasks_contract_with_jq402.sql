-- A schedule's jobs are enqueued later, by jobq.maintain, where a payload the task refuses would
-- fail the whole tick. So schedule checks, at once, that the payload plus its slot key
-- ({slot_key: "<slot instant>"}) keeps the task's payload contract, and refuses one that does not
-- with JQ402 (JOB.PAYLOAD_INVALID), writing nothing. A contract that asks for the slot key itself
-- is kept by the slot key schedule adds.
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
SELECT FROM jobq.define_task('pgtap-daily-report', payload_schema => '{"targetDate": "date"}');
SELECT FROM jobq.define_task('pgtap-slot-task', payload_schema => '{"slotAt": "timestamp", "region?": "string"}');

SELECT throws_ok($$ SELECT jobq.schedule('pgtap-daily-report', '0 18 * * *', 'pgtap-daily-report', '{"region": "jp"}') $$, 'JQ402', NULL,
    'a payload missing a key the task requires is refused with JQ402');
SELECT is_empty($$ SELECT * FROM jobq.schedules WHERE name = 'pgtap-daily-report' $$, 'and no schedule is written');

SELECT lives_ok($$ SELECT jobq.schedule('pgtap-slot-task', '0 18 * * *', 'pgtap-slot-task') $$,
    'a task that requires the slot key (slotAt: timestamp) gets it from the schedule: accepted');
SELECT lives_ok($$ SELECT jobq.schedule('pgtap-slot-task-jp', '0 18 * * *', 'pgtap-slot-task', '{"region": "jp"}') $$,
    'a payload that keeps the contract is accepted');

SELECT * FROM finish();
ROLLBACK;
