-- jobq_operator runs the queue for every store: its direct reads see every job, and retry_job and
-- cancel_job (the gate) reach every store's jobs, whatever app.current_store_id says.
BEGIN;
SELECT plan(10);

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

CREATE ROLE pgtap_operator_login LOGIN IN ROLE jobq_operator;
SET SESSION AUTHORIZATION pgtap_operator_login;
SELECT set_eq($$ SELECT id FROM jobq.jobs UNION ALL SELECT id FROM jobq.job_history $$, $$ SELECT id FROM named $$,
              'a login granted jobq_operator reads every job of every store, without a store setting');
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT set_eq($$ SELECT id FROM jobq.jobs UNION ALL SELECT id FROM jobq.job_history $$, $$ SELECT id FROM named $$,
              'and with a store setting');
SELECT is(jobq.retry_job((SELECT id FROM named WHERE name = 'b_done')), 'queued', 'the operator retries store B''s finished job');
SELECT is(jobq.cancel_job((SELECT id FROM named WHERE name = 'b_live')), 'canceled', 'the operator cancels store B''s live job');
SELECT is(jobq.cancel_job((SELECT id FROM named WHERE name = 'system_live')), 'canceled', 'and a system job');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$, 'the operator enqueues for store B');
RESET SESSION AUTHORIZATION;
SET LOCAL ROLE jobq_operator;
SELECT is(jobq.retry_job((SELECT id FROM named WHERE name = 'a_done')), 'queued', 'as SET ROLE jobq_operator too, retry_job reaches any store');
RESET ROLE;
SELECT results_eq($$ SELECT n.name, j.state FROM jobq.jobs j JOIN named n ON n.id = j.id WHERE n.name IN ('b_done', 'a_done') ORDER BY n.name $$,
                  $$ VALUES ('a_done'::text, 'queued'::text), ('b_done', 'queued') $$, 'the retried jobs are queued again');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM named WHERE name = 'b_live')), 'canceled', 'B''s canceled job is in history');

SELECT * FROM finish();
ROLLBACK;
