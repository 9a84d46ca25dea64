BEGIN;
SELECT plan(4);

SELECT results_eq(
    $$ SELECT a, jobq.backoff_ceiling(a, '2 seconds', '20 seconds') FROM generate_series(1, 7) AS a ORDER BY a $$,
    $$ VALUES (1, interval '2 seconds'), (2, interval '4 seconds'), (3, interval '8 seconds'), (4, interval '16 seconds'),
              (5, interval '20 seconds'), (6, interval '20 seconds'), (7, interval '20 seconds') $$,
    'backoff_ceiling is base at attempt 1, doubles each attempt, and stops at max');
SELECT results_eq(
    $$ VALUES (jobq.backoff_ceiling(0, '2 seconds', '1 hour')), (jobq.backoff_ceiling(-3, '2 seconds', '1 hour')) $$,
    $$ VALUES (interval '2 seconds'), (interval '2 seconds') $$,
    'an attempt below 1 counts as attempt 1');
SELECT is(jobq.backoff_ceiling(1, '1 hour', '10 minutes'), interval '10 minutes', 'a base above max is capped at max');
SELECT is(jobq.backoff_ceiling(12, '2 seconds', '1 hour'), interval '1 hour',
          'with the default settings (2 s, 1 h) attempt 12 reaches the cap (2 s * 2^11 = 68 min)');

SELECT * FROM finish();
ROLLBACK;
