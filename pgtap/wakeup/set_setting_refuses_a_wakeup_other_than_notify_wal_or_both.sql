-- set_setting refuses any wakeup but notify, wal or both with JOB.UNKNOWN_SETTING (JQ204), the
-- error of a value that does not parse as its setting's kind, and changes nothing.
BEGIN;
SELECT plan(7);

UPDATE jobq.settings SET value = 'notify' WHERE name = 'wakeup';
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.settings;

SELECT throws_ok($$ SELECT jobq.set_setting('wakeup', 'logical') $$,
    'JQ204', 'JOB.UNKNOWN_SETTING: ''logical'' is not a wake-up mode for setting wakeup; use notify, wal or both',
    'set_setting refuses wakeup logical with JQ204 and names the three modes');
SELECT throws_ok($$ SELECT jobq.set_setting('wakeup', 'WAL') $$, 'JQ204', NULL, 'the modes are lower case: WAL is refused');
SELECT throws_ok($$ SELECT jobq.set_setting('wakeup', ' wal') $$, 'JQ204', NULL, 'a mode with blanks around it is refused');
SELECT throws_ok($$ SELECT jobq.set_setting('wakeup', '') $$, 'JQ204', NULL, 'an empty wakeup is refused');
SELECT throws_ok($$ SELECT jobq.set_setting('wakeup', NULL) $$, 'JQ204', NULL, 'a NULL wakeup is refused');
SELECT is_empty($$ SELECT * FROM jobq.settings EXCEPT SELECT * FROM snapshot $$, 'the refused calls changed no setting');
SELECT is((SELECT count(*) FROM jobq.audit_log WHERE action = 'set_setting' AND id > (SELECT id FROM audit_before)), 0::bigint,
          'the refused calls wrote no audit row');

SELECT * FROM finish();
ROLLBACK;
