-- A disabled schedule is left alone: no slot of it is handled, recorded or enqueued, and it keeps
-- its next_slot_at. Enabled again, it resumes from there (slots older than its backfill window
-- are then skipped as late).
BEGIN;
SELECT plan(5);

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
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick', enabled => false);
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 17:45:00+00';

SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots('2026-05-05 18:00:00+00') $$, 'a disabled schedule''s due slots are not handled');
SELECT is_empty($$ SELECT * FROM jobq.schedule_runs $$, 'nothing is recorded');
SELECT is_empty($$ SELECT * FROM jobq.jobs $$, 'nothing is enqueued');
SELECT is((SELECT next_slot_at FROM jobq.schedules), '2026-05-05 17:45:00+00'::timestamptz, 'the schedule keeps its next slot');

SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick', enabled => true);
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 18:10:00+00') $$,
    $$ VALUES ('2026-05-05 17:45:00+00'::timestamptz, 'skipped'::text, 'late'::text), ('2026-05-05 17:55:00+00', 'enqueued', NULL),
              ('2026-05-05 18:00:00+00', 'enqueued', NULL), ('2026-05-05 18:05:00+00', 'enqueued', NULL), ('2026-05-05 18:10:00+00', 'enqueued', NULL) $$,
    'enabled again, it resumes from its next slot: those before the 15-minute window are skipped as late, the rest run');

SELECT * FROM finish();
ROLLBACK;
