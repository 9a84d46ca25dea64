-- jobq.pause_schedule: maintain enqueues none of the schedule's slots, and re-declaring it keeps
-- the pause. jobq.resume_schedule restarts from the next slot after now(): however long the
-- pause, nothing is backfilled. Both are idempotent and audited only when the state changes.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', queue => 'pgtap_sched', backfill_window => '1 day');

SELECT is(jobq.pause_schedule('pgtap-hourly'), true, 'pause_schedule returns true');
SELECT is(jobq.pause_schedule('pgtap-hourly'), false, 'pausing it again returns false');
SELECT results_eq($$ SELECT enabled, paused_at IS NOT NULL, paused_by FROM jobq.schedules $$,
                  $$ VALUES (true, true, session_user::text COLLATE "default") $$, 'the schedule stays enabled and is marked paused, by whom');
UPDATE jobq.schedules SET next_slot_at = now() - interval '5 hours';
SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots(now()) $$, 'maintain handles no slot of a paused schedule');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', queue => 'pgtap_other', backfill_window => '1 day');
SELECT isnt((SELECT paused_at FROM jobq.schedules), NULL, 're-declaring it (as a runner syncing its code does) keeps the pause');

SELECT is(jobq.resume_schedule('pgtap-hourly'), true, 'resume_schedule returns true');
SELECT is(jobq.resume_schedule('pgtap-hourly'), false, 'resuming it again returns false');
SELECT is((SELECT next_slot_at FROM jobq.schedules), jobq.cron_next('0 * * * *', now()),
          'it restarts from the next slot after now(), not from the 5 hours of slots it missed');
SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots(now()) $$, 'so nothing is backfilled');
SELECT results_eq($$ SELECT action, actor, detail ->> 'schedule' FROM jobq.audit_log WHERE action LIKE '%_schedule' ORDER BY id $$,
                  $$ VALUES ('pause_schedule'::text, session_user::text COLLATE "default", 'pgtap-hourly'::text), ('resume_schedule', session_user, 'pgtap-hourly') $$,
                  'one audit row per change, actor session_user');

SELECT * FROM finish();
ROLLBACK;
