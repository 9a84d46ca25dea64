-- The setting wakeup exists as text, defaults to notify (enqueue behaves as before the setting
-- existed), and set_setting takes each of its three values, auditing every change.
BEGIN;
SELECT plan(6);

CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT results_eq($$ SELECT kind, value FROM jobq.settings WHERE name = 'wakeup' $$,
                  $$ VALUES ('text'::text, 'notify'::text) $$,
                  'the setting wakeup is text and notify as migrated');
SELECT is(jobq.set_setting('wakeup', 'wal'), 'wal', 'set_setting takes wakeup wal');
SELECT is(jobq.set_setting('wakeup', 'both'), 'both', 'set_setting takes wakeup both');
SELECT is(jobq.set_setting('wakeup', 'notify'), 'notify', 'set_setting takes wakeup notify');
SELECT is((SELECT value FROM jobq.settings WHERE name = 'wakeup'), 'notify', 'the last value set is stored');
SELECT results_eq(
    $$ SELECT detail FROM jobq.audit_log WHERE action = 'set_setting' AND id > (SELECT id FROM audit_before) ORDER BY id $$,
    $$ VALUES ('{"name": "wakeup", "from": "notify", "to": "wal"}'::jsonb),
              ('{"name": "wakeup", "from": "wal", "to": "both"}'::jsonb),
              ('{"name": "wakeup", "from": "both", "to": "notify"}'::jsonb) $$,
    'each change of wakeup is audited with the old and the new value');

SELECT * FROM finish();
ROLLBACK;
