-- A day that no month has (Feb 30, Apr 31, ...) never comes: cron_next returns NULL (it looks ten
-- years ahead) and cron_slots returns nothing. The parser accepts such expressions; jobq.schedule
-- is where they are refused (see pgtap/schedule/).
BEGIN;
SELECT plan(4);

-- Pure: no table is read or written.
SELECT is(jobq.cron_next('0 0 30 2 *', '2026-05-05 17:42:00+00'), NULL::timestamptz, '0 0 30 2 * (February 30) never fires: NULL');
SELECT is(jobq.cron_next('0 0 31 4 *', '2026-05-05 17:42:00+00'), NULL::timestamptz, '0 0 31 4 * (April 31) never fires: NULL');
SELECT is(jobq.cron_next('0 0 31 2,4,6,9,11 *', '2026-05-05 17:42:00+00', 'Asia/Tokyo'), NULL::timestamptz,
          'day 31 of months that have 30 days or fewer never fires, in any zone');
SELECT is_empty($$ SELECT * FROM jobq.cron_slots('0 0 30 2 *', '2026-01-01 00:00:00+00', '2036-01-01 00:00:00+00') $$,
                'cron_slots of an expression that never fires is empty');

SELECT * FROM finish();
ROLLBACK;
