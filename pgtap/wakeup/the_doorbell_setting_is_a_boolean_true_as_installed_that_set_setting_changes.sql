-- The setting doorbell (00013) exists as a boolean, true on a new installation (no runner was live
-- when it was migrated): with wakeup notify, an enqueue NOTIFYs only when a runner of the queue
-- waits. set_setting takes false (every due enqueue NOTIFYs, as runners of the release before
-- need) and true again, auditing each change, and refuses what is not a boolean.
BEGIN;
SELECT plan(5);
SELECT jobq_test.reset();

CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT results_eq($$ SELECT kind, value FROM jobq.settings WHERE name = 'doorbell' $$,
                  $$ VALUES ('boolean'::text, 'true'::text) $$,
                  'the setting doorbell is a boolean, true as migrated on a database without live runners');
SELECT is(jobq.set_setting('doorbell', 'false'), 'false', 'set_setting takes doorbell false');
SELECT is(jobq.set_setting('doorbell', 'true'), 'true', 'set_setting takes doorbell true');
SELECT throws_like($$ SELECT jobq.set_setting('doorbell', 'sometimes') $$, '%JOB.UNKNOWN_SETTING%',
                   'set_setting refuses a doorbell that is not a boolean');
SELECT results_eq(
    $$ SELECT detail FROM jobq.audit_log WHERE action = 'set_setting' AND id > (SELECT id FROM audit_before) ORDER BY id $$,
    $$ VALUES ('{"name": "doorbell", "from": "true", "to": "false"}'::jsonb),
              ('{"name": "doorbell", "from": "false", "to": "true"}'::jsonb) $$,
    'each change of doorbell is audited with the old and the new value');

SELECT * FROM finish();
ROLLBACK;
