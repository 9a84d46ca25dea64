-- jobq.setting_list(name) lists the settings by name, or the one named (none for an unknown name).
BEGIN;
SELECT plan(3);

SELECT results_eq($$ SELECT name FROM jobq.setting_list() $$, $$ SELECT name FROM jobq.settings ORDER BY name $$,
    'every setting, by name');
SELECT results_eq($$ SELECT name, kind FROM jobq.setting_list('history_retention') $$, $$ VALUES ('history_retention'::text, 'interval'::text) $$,
    'the one named');
SELECT is_empty($$ SELECT * FROM jobq.setting_list('no_such_setting') $$, 'no row for an unknown name');

SELECT * FROM finish();
ROLLBACK;
