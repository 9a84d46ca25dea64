BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();

CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.settings;

SELECT throws_ok($$ SELECT jobq.set_setting('no_such_setting', '1') $$,
    'JQ204', 'JOB.UNKNOWN_SETTING: no setting is named ''no_such_setting''', 'set_setting refuses an unknown name with JQ204');
SELECT throws_ok($$ SELECT jobq.set_setting('history_retention', 'a week') $$,
    'JQ204', 'JOB.UNKNOWN_SETTING: ''a week'' is not a valid positive interval for setting history_retention',
    'an interval setting refuses text that is not an interval');
SELECT throws_ok($$ SELECT jobq.set_setting('history_retention', '0 seconds') $$,
    'JQ204', NULL, 'an interval setting refuses zero');
SELECT throws_ok($$ SELECT jobq.set_setting('backoff_max', '-1 hour') $$,
    'JQ204', NULL, 'an interval setting refuses a negative interval');
SELECT throws_ok($$ SELECT jobq.set_setting('default_max_attempts', '0') $$,
    'JQ204', 'JOB.UNKNOWN_SETTING: ''0'' is not a valid positive integer for setting default_max_attempts',
    'an integer setting refuses zero');
SELECT throws_ok($$ SELECT jobq.set_setting('default_max_attempts', '2.5') $$, 'JQ204', NULL, 'an integer setting refuses a fraction');
SELECT throws_ok($$ SELECT jobq.set_setting('default_max_attempts', '99999999999') $$, 'JQ204', NULL, 'an integer setting refuses an out-of-range number');
SELECT throws_ok($$ SELECT jobq.set_setting('default_lease', NULL) $$, 'JQ204', NULL, 'set_setting refuses NULL');
SELECT is_empty($$ SELECT * FROM jobq.settings EXCEPT SELECT * FROM snapshot $$, 'the refused calls changed no setting');
SELECT is((SELECT count(*) FROM jobq.audit_log WHERE action = 'set_setting' AND id > (SELECT id FROM audit_before)), 0::bigint, 'the refused calls wrote no audit row');

SELECT * FROM finish();
ROLLBACK;
