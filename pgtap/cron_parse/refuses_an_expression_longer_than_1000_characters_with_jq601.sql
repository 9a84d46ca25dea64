-- An expression is at most 1000 characters (after trimming); a longer one is refused with JQ601
-- (JOB.INVALID_CRON) before any field is parsed, and the message quotes none of it.
BEGIN;
SELECT plan(3);

-- Pure: no table is read or written.
SELECT throws_ok($$ SELECT jobq.cron_parse('0 0 * * ' || repeat('1,', 500000) || '2') $$, 'JQ601',
    'JOB.INVALID_CRON: the expression has 1000009 characters; at most 1000', 'a million-character expression is refused');
SELECT lives_ok($$ SELECT jobq.cron_parse('0 0 * * ' || repeat('1,', 495) || '2') $$, 'a 999-character expression parses');
SELECT throws_ok($$ SELECT jobq.cron_next('@' || repeat('x', 5000), '2026-01-01 00:00:00+00') $$, 'JQ601', NULL,
    'cron_next refuses a long unknown macro the same way');

SELECT * FROM finish();
ROLLBACK;
