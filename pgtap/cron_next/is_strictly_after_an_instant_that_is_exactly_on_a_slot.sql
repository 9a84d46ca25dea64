-- cron_next is strictly after its instant: an instant exactly on a slot gives the next slot, so a
-- caller that feeds each slot back in walks the slots one by one and never repeats one.
BEGIN;
SELECT plan(5);

-- Pure: no table is read or written.
SELECT is(jobq.cron_next('*/5 * * * *', '2026-05-05 17:45:00+00'), '2026-05-05 17:50:00+00'::timestamptz,
          'an instant exactly on a 5-minute slot gives the following slot');
SELECT is(jobq.cron_next('*/5 * * * *', '2026-05-05 17:44:59.999999+00'), '2026-05-05 17:45:00+00'::timestamptz,
          'a microsecond before the slot gives the slot');
SELECT is(jobq.cron_next('0 18 * * *', '2026-05-05 18:00:00+00'), '2026-05-06 18:00:00+00'::timestamptz,
          'an instant exactly on the daily slot gives the next day''s slot');
SELECT is(jobq.cron_next('0 3 * * *', '2026-05-05 18:00:00+00', 'Asia/Tokyo'), '2026-05-06 18:00:00+00'::timestamptz,
          'the same holds in another time zone');
SELECT results_eq(
    $$ SELECT s FROM jobq.cron_slots('*/20 * * * *', '2026-05-05 17:00:00+00', '2026-05-05 18:00:00+00') AS s $$,
    $$ VALUES ('2026-05-05 17:20:00+00'::timestamptz), ('2026-05-05 17:40:00+00'), ('2026-05-05 18:00:00+00') $$,
    'cron_slots walks (from, to]: it starts after a from that is on a slot and includes a to that is');

SELECT * FROM finish();
ROLLBACK;
