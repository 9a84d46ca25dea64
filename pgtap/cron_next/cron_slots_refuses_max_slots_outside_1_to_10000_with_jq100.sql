-- cron_slots lists at most max_slots slots, 1 to 10000 (default 1000): a NULL, zero, negative or
-- larger bound is refused with JQ100 (JOB.INVALID_ARGUMENT) naming max_slots, so that no call
-- walks an unbounded number of slots. Pure: a refused call changes nothing.
BEGIN;
SET LOCAL statement_timeout = '20s';
SELECT plan(6);

SELECT throws_ok($$ SELECT * FROM jobq.cron_slots('* * * * *', '2026-01-01 00:00:00+00', '2027-01-01 00:00:00+00', 'UTC', 2147483647) $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: max_slots is 2147483647; it must be 1 to 10000', 'a huge max_slots is refused');
SELECT throws_ok($$ SELECT * FROM jobq.cron_slots('* * * * *', '2026-01-01 00:00:00+00', '2027-01-01 00:00:00+00', 'UTC', 10001) $$, 'JQ100', NULL,
    '10001 is refused');
SELECT throws_ok($$ SELECT * FROM jobq.cron_slots('* * * * *', '2026-01-01 00:00:00+00', '2027-01-01 00:00:00+00', 'UTC', 0) $$, 'JQ100', NULL,
    '0 is refused');
SELECT throws_ok($$ SELECT * FROM jobq.cron_slots('* * * * *', '2026-01-01 00:00:00+00', '2027-01-01 00:00:00+00', 'UTC', NULL) $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: max_slots is NULL; it must be 1 to 10000', 'NULL is refused');
SELECT is((SELECT count(*) FROM jobq.cron_slots('* * * * *', '2026-01-01 00:00:00+00', '2027-01-01 00:00:00+00', 'UTC', 10000)), 10000::bigint,
          '10000 is accepted and bounds the list');
SELECT is_empty($$ SELECT * FROM jobq.cron_slots('* * * * *', '2026-01-02 00:00:00+00', '2026-01-01 00:00:00+00') $$,
                'to_at before from_at lists nothing');

SELECT * FROM finish();
ROLLBACK;
