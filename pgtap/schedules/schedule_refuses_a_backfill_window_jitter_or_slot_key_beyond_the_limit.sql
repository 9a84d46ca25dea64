-- schedule: backfill_window at most 7 days, jitter at most 1 day (JQ107), slot_key at most 100
-- characters, queue 200 (JQ106), max_attempts 1..1000 (JQ104). Nothing is written.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', backfill_window => '1000000 years') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: backfill_window 1000000 years is above the limit of 7 days', 'a backfill window of 1000000 years is refused');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', jitter => '2 days') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: jitter 2 days is above the limit of 1 day', 'a jitter of 2 days is refused');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', slot_key => repeat('s', 101)) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: slot_key is 101 characters long; the limit is 100', 'a 101-character slot key is refused');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', queue => repeat('q', 201)) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: queue is 201 characters long; the limit is 200', 'a 201-character queue is refused');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', max_attempts => 1001) $$,
    'JQ104', 'JOB.MAX_ATTEMPTS_INVALID: max_attempts 1001 is outside 1..1000', 'max_attempts 1001 is refused');
SELECT is((SELECT count(*) FROM jobq.schedules WHERE name = 'pgtap-bounds'), 0::bigint, 'no schedule was written');

SELECT * FROM finish();
ROLLBACK;
