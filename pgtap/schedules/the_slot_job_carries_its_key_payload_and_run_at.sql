-- The job of a slot: the schedule's task with its payload plus {slotAt: "<slot in UTC, ISO 8601>"}
-- (or under the schedule's slot_key; none when slot_key is NULL), job key
-- schedule:<name>:<slot ISO> (unsafe_dedupe), run_at the slot, or with jitter a fixed point in
-- [slot, slot + jitter]. Queue, priority and attempts come from the schedule, else from the task.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-report', queue => 'pgtap_task_q', max_attempts => 9);

-- Backfill windows of two hours, so that every slot from 18:00 to a call at 19:00 runs.
SELECT FROM jobq.schedule('pgtap-report', '0 3 * * *', 'pgtap-report', '{"region": "jp"}', 'Asia/Tokyo',
                          queue => 'pgtap_sched', priority => 3, max_attempts => 2, backfill_window => '2 hours');
SELECT FROM jobq.schedule('pgtap-report-defaults', '0 3 * * *', 'pgtap-report', timezone => 'Asia/Tokyo', slot_key => 'runAt', backfill_window => '2 hours');
SELECT FROM jobq.schedule('pgtap-report-no-slot', '0 3 * * *', 'pgtap-report', '{"fixed": true}', 'Asia/Tokyo', slot_key => NULL, backfill_window => '2 hours');
SELECT FROM jobq.schedule('pgtap-jittery', '*/5 * * * *', 'pgtap-report', jitter => '10 minutes', backfill_window => '2 hours');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 18:00:00+00';
CREATE TEMP TABLE ran AS SELECT * FROM jobq._enqueue_due_slots('2026-05-05 19:00:00+00');

SELECT results_eq(
    $$ SELECT j.task, j.queue, j.priority, j.max_attempts, j.payload, j.job_key, j.job_key_mode, j.run_at, j.store_id, j.state, j.attempt
       FROM jobq.jobs j JOIN ran r ON r.job_id = j.id WHERE r.schedule = 'pgtap-report' $$,
    $$ VALUES ('pgtap-report'::text, 'pgtap_sched'::text, 3::smallint, 2, '{"region": "jp", "slotAt": "2026-05-05T18:00:00Z"}'::jsonb,
              'schedule:pgtap-report:2026-05-05T18:00:00Z'::text, 'unsafe_dedupe'::text, '2026-05-05 18:00:00+00'::timestamptz, NULL::uuid,
              'queued'::text, 0) $$,
    'the job: the task, the schedule''s queue, priority and attempts, payload plus slotAt in UTC, key schedule:<name>:<slot>, run_at the slot');
SELECT results_eq(
    $$ SELECT j.queue, j.priority, j.max_attempts, j.payload FROM jobq.jobs j JOIN ran r ON r.job_id = j.id WHERE r.schedule = 'pgtap-report-defaults' $$,
    $$ VALUES ('pgtap_task_q'::text, 0::smallint, 9, '{"runAt": "2026-05-05T18:00:00Z"}'::jsonb) $$,
    'without its own queue and attempts the task''s apply; slot_key runAt names the slot''s key');
SELECT is((SELECT j.payload FROM jobq.jobs j JOIN ran r ON r.job_id = j.id WHERE r.schedule = 'pgtap-report-no-slot'), '{"fixed": true}'::jsonb,
          'with slot_key NULL the payload is the schedule''s as it is');
SELECT results_eq(
    $$ SELECT r.schedule, r.slot_at, r.outcome, r.job_id FROM jobq.schedule_runs r WHERE r.schedule LIKE 'pgtap-report%' ORDER BY r.schedule $$,
    $$ SELECT r.schedule, r.slot_at, 'enqueued'::text, r.job_id FROM ran r WHERE r.schedule LIKE 'pgtap-report%' ORDER BY r.schedule $$,
    'each slot is recorded in schedule_runs as enqueued, with its job');

SELECT is((SELECT count(*) FROM ran WHERE schedule = 'pgtap-jittery'), 13::bigint, 'setup: the jittery schedule ran its 13 slots, 18:00 to 19:00');
SELECT is_empty(
    $$ SELECT r.slot_at, j.run_at FROM ran r JOIN jobq.jobs j ON j.id = r.job_id
       WHERE r.schedule = 'pgtap-jittery' AND NOT (j.run_at BETWEEN r.slot_at AND r.slot_at + interval '10 minutes') $$,
    'with jitter, every job runs within [slot, slot + jitter]');
SELECT cmp_ok((SELECT count(DISTINCT j.run_at - r.slot_at) FROM ran r JOIN jobq.jobs j ON j.id = r.job_id WHERE r.schedule = 'pgtap-jittery'),
              '>', 1::bigint, 'and the jitter differs from slot to slot');
SELECT is_empty(
    $$ SELECT j.id FROM ran r JOIN jobq.jobs j ON j.id = r.job_id
       WHERE r.schedule = 'pgtap-jittery' AND j.payload ->> 'slotAt' <> to_char(r.slot_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') $$,
    'jitter moves run_at, never the slot the payload names');

SELECT * FROM finish();
ROLLBACK;
