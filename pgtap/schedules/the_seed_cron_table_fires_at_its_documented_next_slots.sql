-- The cron table of seed 000 §7.3, declared as jobq schedules (in UTC, the zone the seed writes
-- them in): each schedule's next slot from 2026-05-05 17:42:00 UTC, and from 18:00:00 UTC exactly
-- (strictly after: the 18:00 slot itself is not "next" any more), is the one the seed expects.
-- In Tokyo (JST, UTC+9) the daily ones run between midnight and 03:00.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
-- Their tasks (schedules run declared system tasks).
SELECT FROM unnest(ARRAY['expire-tentative-reservations', 'aggregate-daily-sales', 'cleanup-deleted-customers',
    'cleanup-expired-operator-sessions', 'cleanup-expired-operator-invitations', 'purge-deleted-customer-notes']) AS t(name)
CROSS JOIN LATERAL jobq.define_task(t.name) AS d;

CREATE TEMP TABLE seed (name text, cron text, next_from_1742 timestamptz, next_from_1800 timestamptz, jst time);
INSERT INTO seed VALUES
    ('expire-tentative-reservations',        '*/5 * * * *', '2026-05-05 17:45:00+00', '2026-05-05 18:05:00+00', NULL),
    ('aggregate-daily-sales',                '0 18 * * *',  '2026-05-05 18:00:00+00', '2026-05-06 18:00:00+00', '03:00'),
    ('cleanup-deleted-customers',            '0 17 * * *',  '2026-05-06 17:00:00+00', '2026-05-06 17:00:00+00', '02:00'),
    ('cleanup-expired-operator-sessions',    '0 16 * * *',  '2026-05-06 16:00:00+00', '2026-05-06 16:00:00+00', '01:00'),
    ('cleanup-expired-operator-invitations', '0 16 * * *',  '2026-05-06 16:00:00+00', '2026-05-06 16:00:00+00', '01:00'),
    ('purge-deleted-customer-notes',         '0 15 * * *',  '2026-05-06 15:00:00+00', '2026-05-06 15:00:00+00', '00:00');

SELECT is((SELECT count(*) FROM seed CROSS JOIN LATERAL jobq.schedule(seed.name, seed.cron, seed.name) AS s), 6::bigint,
          'the six schedules of the seed''s cron table are declared, each running its task of the same name');
SELECT results_eq($$ SELECT name, cron, timezone, task FROM jobq.schedules ORDER BY name $$,
                  $$ SELECT name, cron, 'UTC'::text, name FROM seed ORDER BY name $$,
                  'they are stored with their crons, in UTC');
SELECT results_eq(
    $$ SELECT s.name, jobq.cron_next(s.cron, '2026-05-05 17:42:00+00', s.timezone) FROM jobq.schedules s ORDER BY s.name $$,
    $$ SELECT name, next_from_1742 FROM seed ORDER BY name $$,
    'from 2026-05-05 17:42:00 UTC: expire at 17:45, aggregate at 18:00, the cleanups and the purge tomorrow at 17:00, 16:00, 16:00, 15:00');
SELECT results_eq(
    $$ SELECT s.name, jobq.cron_next(s.cron, '2026-05-05 18:00:00+00', s.timezone) FROM jobq.schedules s ORDER BY s.name $$,
    $$ SELECT name, next_from_1800 FROM seed ORDER BY name $$,
    'from 18:00:00 UTC exactly: expire at 18:05, aggregate tomorrow at 18:00, the others unchanged');
SELECT results_eq(
    $$ SELECT name, (jobq.cron_next(cron, '2026-05-05 12:00:00+00') AT TIME ZONE 'Asia/Tokyo')::time FROM seed WHERE jst IS NOT NULL ORDER BY name $$,
    $$ SELECT name, jst FROM seed WHERE jst IS NOT NULL ORDER BY name $$,
    'in JST the purge runs at 00:00, the session and invitation cleanups at 01:00, the customer cleanup at 02:00, the aggregation at 03:00');

SELECT * FROM finish();
ROLLBACK;
