-- Running jobs and fanning out are the runner's: jobq_app cannot execute claim_job, complete_job,
-- fan_out, _enqueue_for_stores or list_store_ids_for_fan_out, whatever store it is in.
BEGIN;
SELECT plan(7);

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
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('pgtap-app', ARRAY['pgtap_a']) $$, '42501', 'permission denied for function claim_job',
                 'as jobq_app in store A, claim_job is denied');
SELECT throws_ok($$ SELECT jobq.complete_job(1, gen_random_uuid()) $$, '42501', 'permission denied for function complete_job',
                 'as jobq_app in store A, complete_job is denied');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-store-task') $$, '42501', 'permission denied for function fan_out',
                 'as jobq_app in store A, fan_out is denied');
SELECT throws_ok($$ SELECT jobq._enqueue_for_stores('pgtap-store-task', '{}', NULL, NULL, NULL, ARRAY['bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb']::uuid[]) $$, '42501',
                 'permission denied for function _enqueue_for_stores', 'as jobq_app in store A, _enqueue_for_stores is denied');
SELECT throws_ok($$ SELECT * FROM public.list_store_ids_for_fan_out() $$, '42501', 'permission denied for function list_store_ids_for_fan_out',
                 'as jobq_app in store A, list_store_ids_for_fan_out is denied');
RESET ROLE;
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM named WHERE name = 'a_live')), 'queued', 'A''s job stays queued');

SELECT * FROM finish();
ROLLBACK;
