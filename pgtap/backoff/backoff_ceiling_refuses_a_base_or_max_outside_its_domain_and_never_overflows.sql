-- backoff_ceiling and backoff_delay take p_base and p_max in (0, 30 days] (JQ105 / JQ107 naming
-- the argument) and any attempt: no input overflows.
BEGIN;
SELECT plan(6);

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT jobq.backoff_ceiling(1000, '1000000 years', '1 hour') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: p_base 1000000 years is above the limit of 30 days', 'a base of 1000000 years is refused, not 22003');
SELECT throws_ok($$ SELECT jobq.backoff_delay(1, '1 second', '31 days') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: p_max 31 days is above the limit of 30 days', 'backoff_delay refuses a max of 31 days');
SELECT throws_ok($$ SELECT jobq.backoff_ceiling(1, '-1 second', '1 hour') $$,
    'JQ105', 'JOB.LEASE_INVALID: p_base -00:00:01 is not positive', 'a negative base is refused');
SELECT is(jobq.backoff_ceiling(2147483647, '30 days', '30 days'), interval '30 days', 'the largest attempt with the largest backoff gives it');
SELECT is(jobq.backoff_ceiling(40, '1 mon -2591999.999999 seconds', '30 days'), interval '152:42:35.813888',
          'a mixed-sign base of one microsecond doubles 39 times (2^39 microseconds) without overflowing its months');
SELECT is(jobq.backoff_ceiling(NULL, '1 second', '1 hour'), interval '1 second', 'a NULL attempt counts as 1');

SELECT * FROM finish();
ROLLBACK;
