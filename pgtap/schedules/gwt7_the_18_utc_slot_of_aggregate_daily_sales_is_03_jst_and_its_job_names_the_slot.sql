-- Seed GWT-7. Given aggregate-daily-sales scheduled at 0 18 * * * UTC, when its slot of
-- 2026-05-05 18:00 UTC comes — 2026-05-06 03:00 in Tokyo — then its one job carries
-- slotAt "2026-05-05T18:00:00Z", from which the handler derives targetDate 2026-05-05 (the JST
-- day that has just ended), whatever the time the job actually runs.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('aggregate-daily-sales', payload_schema => '{"slotAt": "timestamp"}');
SELECT FROM jobq.schedule('aggregate-daily-sales', '0 18 * * *', 'aggregate-daily-sales');
UPDATE jobq.schedules SET next_slot_at = jobq.cron_next(cron, '2026-05-05 17:42:00+00', timezone);

SELECT is((SELECT next_slot_at FROM jobq.schedules), '2026-05-05 18:00:00+00'::timestamptz, 'at 17:42 UTC the next slot is 18:00 UTC');
SELECT is((SELECT next_slot_at AT TIME ZONE 'Asia/Tokyo' FROM jobq.schedules), '2026-05-06 03:00:00'::timestamp,
          'which is 2026-05-06 03:00 JST');
SELECT is_empty($$ SELECT * FROM jobq._enqueue_due_slots('2026-05-05 17:59:59+00') $$, 'nothing runs before the slot');
CREATE TEMP TABLE ran AS SELECT * FROM jobq._enqueue_due_slots('2026-05-05 18:00:00.2+00');
SELECT results_eq(
    $$ SELECT j.task, j.payload, j.job_key, j.run_at FROM jobq.jobs j JOIN ran r ON r.job_id = j.id $$,
    $$ VALUES ('aggregate-daily-sales'::text, '{"slotAt": "2026-05-05T18:00:00Z"}'::jsonb,
              'schedule:aggregate-daily-sales:2026-05-05T18:00:00Z'::text, '2026-05-05 18:00:00+00'::timestamptz) $$,
    'at the slot, one job: payload slotAt "2026-05-05T18:00:00Z", key schedule:aggregate-daily-sales:2026-05-05T18:00:00Z, run_at 18:00 UTC');
SELECT is((SELECT ((j.payload ->> 'slotAt')::timestamptz AT TIME ZONE 'Asia/Tokyo')::date - 1 FROM jobq.jobs j), '2026-05-05'::date,
          'the JST day that ended at the slot, the handler''s targetDate, is 2026-05-05');
SELECT is((SELECT jobq.payload_problem(t.payload_schema, j.payload) FROM jobq.jobs j JOIN jobq.tasks t ON t.name = j.task), NULL,
          'the payload keeps the task''s contract (slotAt is a timestamp)');

SELECT * FROM finish();
ROLLBACK;
