-- The continuation settings of seed 002 ship as 3 tries 0.3 seconds apart, and set_setting keeps
-- them within their bounds: continuation_retry_count 1 to 100, continuation_retry_interval
-- positive and at most 1 minute.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT results_eq($$ SELECT name, kind, value FROM jobq.settings WHERE name LIKE 'continuation%' ORDER BY name $$,
                  $$ VALUES ('continuation_retry_count'::text, 'integer'::text, '3'::text), ('continuation_retry_interval', 'interval', '0.3 seconds') $$,
                  'the defaults: 3 tries, 0.3 seconds apart');
SELECT is(jobq.set_setting('continuation_retry_count', '100'), '100', 'a count of 100 is accepted');
SELECT throws_ok($$ SELECT jobq.set_setting('continuation_retry_count', '101') $$, 'JQ107', NULL, 'a count above 100 is refused');
SELECT throws_ok($$ SELECT jobq.set_setting('continuation_retry_count', '0') $$, 'JQ204', NULL, 'a count of 0 is refused');
SELECT is(jobq.set_setting('continuation_retry_interval', '1 minute'), '1 minute', 'an interval of a minute is accepted');
SELECT throws_ok($$ SELECT jobq.set_setting('continuation_retry_interval', '61 seconds') $$, 'JQ107', NULL, 'a longer interval is refused');

SELECT * FROM finish();
ROLLBACK;
