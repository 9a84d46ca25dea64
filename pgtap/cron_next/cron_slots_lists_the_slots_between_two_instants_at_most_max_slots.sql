-- jobq.cron_slots(expr, from_at, to_at, timezone, max_slots) lists, for previews and tests, every
-- slot in (from_at, to_at] in order — each the cron_next of the one before — and stops after
-- max_slots (default 1000).
BEGIN;
SELECT plan(5);

-- Pure: no table is read or written.
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('0 9 * * 1-5', '2026-05-07 00:00:00+00', '2026-05-13 00:00:00+00') AS s $$,
    $$ VALUES ('2026-05-07 09:00:00+00'::timestamptz), ('2026-05-08 09:00:00+00'), ('2026-05-11 09:00:00+00'), ('2026-05-12 09:00:00+00') $$,
    'weekdays at 09:00 from Thursday to Tuesday: Thursday, Friday, Monday, Tuesday');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('0 3 * * *', '2026-05-05 00:00:00+00', '2026-05-08 00:00:00+00', 'Asia/Tokyo') AS s $$,
    $$ VALUES ('2026-05-05 18:00:00+00'::timestamptz), ('2026-05-06 18:00:00+00'), ('2026-05-07 18:00:00+00') $$,
    'in a time zone: 03:00 JST three days running, at 18:00 UTC');
SELECT is((SELECT count(*) FROM jobq.cron_slots('* * * * *', '2026-05-05 00:00:00+00', '2026-05-06 00:00:00+00', 'UTC', 10)), 10::bigint,
          'max_slots bounds the list');
SELECT is((SELECT count(*) FROM jobq.cron_slots('* * * * *', '2026-05-05 00:00:00+00', '2026-05-06 00:00:00+00')), 1000::bigint,
          'max_slots defaults to 1000');
SELECT is_empty($$ SELECT * FROM jobq.cron_slots('0 18 * * *', '2026-05-05 18:00:00+00', '2026-05-06 17:59:59+00') $$,
                'a range without a slot lists nothing');

SELECT * FROM finish();
ROLLBACK;
