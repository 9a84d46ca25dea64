-- jobq.upkeep_advice checks its bounds before it reads anything: NULLs, negatives and values
-- beyond the documented ranges end in catalogued errors.
BEGIN;
SELECT plan(8);

SELECT throws_ok($$ SELECT * FROM jobq.upkeep_advice(min_bytes => NULL) $$, 'JQ100', NULL, 'a NULL min_bytes is JOB.INVALID_ARGUMENT');
SELECT throws_ok($$ SELECT * FROM jobq.upkeep_advice(max_rows => NULL) $$, 'JQ100', NULL, 'a NULL max_rows is JOB.INVALID_ARGUMENT');
SELECT throws_ok($$ SELECT * FROM jobq.upkeep_advice(held_after => NULL) $$, 'JQ100', NULL, 'a NULL held_after is JOB.INVALID_ARGUMENT');
SELECT throws_ok($$ SELECT * FROM jobq.upkeep_advice(min_bytes => -1) $$, 'JQ107', NULL, 'a negative min_bytes is JOB.OUT_OF_RANGE');
SELECT throws_ok($$ SELECT * FROM jobq.upkeep_advice(min_bytes => 9223372036854775807) $$, 'JQ107', NULL, 'min_bytes above 1 TiB is JOB.OUT_OF_RANGE');
SELECT throws_ok($$ SELECT * FROM jobq.upkeep_advice(max_rows => 2147483647) $$, 'JQ107', NULL, 'max_rows above 1,000,000 is JOB.OUT_OF_RANGE');
SELECT throws_ok($$ SELECT * FROM jobq.upkeep_advice(held_after => interval '-1 second') $$, 'JQ105', NULL, 'a negative held_after is JOB.LEASE_INVALID');
SELECT throws_ok($$ SELECT * FROM jobq.upkeep_advice(held_after => 'infinity'::interval) $$, NULL, NULL, 'an infinite held_after is refused');

SELECT * FROM finish();
ROLLBACK;
