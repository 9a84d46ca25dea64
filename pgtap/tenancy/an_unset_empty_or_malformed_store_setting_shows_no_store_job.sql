-- Fail closed: app.current_store_id unset, empty (what an ended SET LOCAL leaves behind), not a uuid
-- or a uuid with anything around it gives no store at all. jobq_app then sees no store job and the
-- gate reaches none, and nothing raises an error (a malformed setting is not a way to learn anything).
BEGIN;
SELECT plan(14);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT jobq_test.tasks('pgtap-system-task');

-- Store A, store B and the system each have a live job and a finished (canceled) one (named).
SELECT jobq_test.tenant_jobs();
SELECT is((SELECT count(*) FROM (SELECT id FROM named WHERE name LIKE '%\_done') AS d CROSS JOIN LATERAL jobq.cancel_job(d.id) AS c),
          3::bigint, 'setup: a live and a finished job in store A, in store B and in the system');
GRANT SELECT ON named TO PUBLIC;
CREATE TEMP TABLE snapshot AS
SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h;

SET LOCAL ROLE jobq_app;

RESET app.current_store_id;
SELECT is(jobq.current_store_id(), NULL::uuid, 'current_store_id() is NULL without the setting');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id IS NOT NULL) + (SELECT count(*) FROM jobq.job_history WHERE store_id IS NOT NULL), 0::bigint,
          'as jobq_app without the setting, no store job is visible, and reading raises no error');

SET LOCAL app.current_store_id = '';
SELECT is(jobq.current_store_id(), NULL::uuid, 'current_store_id() is NULL with an empty setting (what an ended SET LOCAL leaves)');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id IS NOT NULL) + (SELECT count(*) FROM jobq.job_history WHERE store_id IS NOT NULL), 0::bigint,
          'as jobq_app with an empty setting (what an ended SET LOCAL leaves), no store job is visible, and reading raises no error');

SET LOCAL app.current_store_id = 'not-a-uuid';
SELECT is(jobq.current_store_id(), NULL::uuid, 'current_store_id() is NULL with a setting that is not a uuid');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id IS NOT NULL) + (SELECT count(*) FROM jobq.job_history WHERE store_id IS NOT NULL), 0::bigint,
          'as jobq_app with a setting that is not a uuid, no store job is visible, and reading raises no error');

SET LOCAL app.current_store_id = ' aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT is(jobq.current_store_id(), NULL::uuid, 'current_store_id() is NULL with a uuid padded by a blank');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id IS NOT NULL) + (SELECT count(*) FROM jobq.job_history WHERE store_id IS NOT NULL), 0::bigint,
          'as jobq_app with a uuid padded by a blank, no store job is visible, and reading raises no error');

-- A setting made in a subtransaction that rolled back is gone as well.
SAVEPOINT before_setting;
SELECT set_config('app.current_store_id', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', true) IS NOT NULL AS set_in_subtransaction;
ROLLBACK TO SAVEPOINT before_setting;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id IS NOT NULL), 0::bigint, 'a store set in a rolled-back subtransaction shows nothing either');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
    'JQ406', 'JOB.TENANT_MISMATCH: store aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa is not this session''s store (app.current_store_id = unset)',
    'without a valid setting, the gate refuses a store job');
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM named WHERE name = 'a_done')), 'JQ202', NULL,
    'without a valid setting, the gate finds no store job to retry');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'a_live')), 'JQ202', NULL,
    'without a valid setting, the gate finds no store job to cancel');
RESET ROLE;
SELECT is_empty(
    $$ SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h
       EXCEPT SELECT * FROM snapshot $$,
    'nothing changed');

SELECT * FROM finish();
ROLLBACK;
