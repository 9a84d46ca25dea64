-- backoff_ceiling must return max for every large attempt, whatever the base, instead of
-- overflowing the interval type (it caps the exponent at 40, and base * 2^40 already overflows
-- for a base of a minute or a day).
BEGIN;
SELECT plan(5);

CREATE FUNCTION pg_temp.ceiling_or_error(p_attempt integer, p_base interval, p_max interval)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    RETURN jobq.backoff_ceiling(p_attempt, p_base, p_max)::text;
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR: ' || SQLERRM;
END
$$;

SELECT is(pg_temp.ceiling_or_error(1000, '2 seconds', '1 hour'), '01:00:00', 'attempt 1000 with base 2 s gives max');
SELECT is(pg_temp.ceiling_or_error(41, '10 seconds', '1 hour'), '01:00:00', 'attempt 41 with base 10 s gives max');
SELECT is(pg_temp.ceiling_or_error(41, '1 minute', '1 hour'), '01:00:00', 'attempt 41 with base 1 minute gives max');
SELECT is(pg_temp.ceiling_or_error(33, '1 day', '7 days'), '7 days', 'attempt 33 with base 1 day gives max');
SELECT is(pg_temp.ceiling_or_error(41, '1 minute', '1 hour'),
          (SELECT pg_temp.ceiling_or_error(40, '1 minute', '1 hour')),
          'the ceiling does not change between attempt 40 and 41 once it is capped');

SELECT * FROM finish();
ROLLBACK;
