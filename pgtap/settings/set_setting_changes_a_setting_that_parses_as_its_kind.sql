BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();

CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT is(jobq.set_setting('history_retention', '3 days'), '3 days', 'set_setting returns the new value');
SELECT results_eq($$ SELECT value, updated_at FROM jobq.settings WHERE name = 'history_retention' $$,
                  $$ VALUES ('3 days'::text, now()) $$, 'set_setting stores the value and the time of the change');
SELECT results_eq(
    $$ SELECT action, job_id, detail, actor FROM jobq.audit_log WHERE action = 'set_setting' AND id > (SELECT id FROM audit_before) $$,
    $$ VALUES ('set_setting'::text, NULL::bigint, '{"name": "history_retention", "from": "7 days", "to": "3 days"}'::jsonb, session_user::text COLLATE "default") $$,
    'set_setting writes one audit row with the old and the new value');
SELECT is(jobq.set_setting('default_max_attempts', '7'), '7', 'an integer setting accepts a positive integer');
SELECT is(jobq.set_setting('backoff_base', '500 milliseconds'), '500 milliseconds', 'an interval setting accepts any positive interval');

SELECT * FROM finish();
ROLLBACK;
