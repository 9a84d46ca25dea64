BEGIN;
SELECT plan(16);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('welcome-email', scope => 'store');
SELECT FROM jobq.define_task('a', app_enqueue => true);
SELECT FROM jobq.define_task('b', app_enqueue => true);

SELECT function_privs_are('jobq', 'enqueue', ARRAY['text', 'jsonb', 'timestamptz', 'text', 'text', 'integer', 'integer', 'text', 'uuid', 'interval', 'interval', 'interval', 'interval',
                                            'bigint[]', 'text', 'text', 'text'],
                          'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute enqueue');
SELECT function_privs_are('jobq', 'enqueue_many', ARRAY['jsonb'], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute enqueue_many');
SELECT function_privs_are('jobq', 'retry_job', ARRAY['bigint'], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute retry_job');
SELECT function_privs_are('jobq', 'cancel_job', ARRAY['bigint'], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute cancel_job');
SELECT function_privs_are('jobq', 'payload_problem', ARRAY['jsonb', 'jsonb'], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute payload_problem');
SELECT function_privs_are('jobq', 'current_store_id', ARRAY[]::text[], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute current_store_id');
SELECT table_privs_are('jobq', 'tasks', 'jobq_app', ARRAY['SELECT'], 'jobq_app can only read jobq.tasks');
SELECT table_privs_are('jobq', 'jobs', 'jobq_app', ARRAY['SELECT'], 'jobq_app can only read jobq.jobs');
SELECT table_privs_are('jobq', 'job_history', 'jobq_app', ARRAY['SELECT'], 'jobq_app can only read jobq.job_history');

-- An application works inside its store (app.current_store_id): it retries and cancels its
-- store's jobs (only operators cancel system jobs).
SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
CREATE TEMP TABLE mine AS
SELECT jobq.enqueue('welcome-email', '{"user": 1, "storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}', run_at => now() + interval '1 hour') AS later,
       jobq.enqueue('welcome-email', '{"user": 2, "storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}') AS now_;
SELECT results_eq($$ SELECT payload->'user' FROM jobq.jobs WHERE id IN (SELECT later FROM mine UNION ALL SELECT now_ FROM mine) ORDER BY id $$,
                  $$ VALUES ('1'::jsonb), ('2') $$, 'as jobq_app, enqueue works and jobq.jobs can be read');
SELECT is((SELECT count(*) FROM jobq.enqueue_many('[{"task": "a"}, {"task": "b"}]')), 2::bigint, 'as jobq_app, enqueue_many works');
SELECT is(jobq.retry_job((SELECT later FROM mine)), 'queued', 'as jobq_app, retry_job works');
SELECT is(jobq.cancel_job((SELECT now_ FROM mine)), 'canceled', 'as jobq_app, cancel_job works');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT now_ FROM mine)), 'canceled', 'as jobq_app, jobq.job_history can be read');
SELECT lives_ok($$ SELECT jobq.payload_problem('{"user": "integer"}', '{"user": "x"}') $$, 'as jobq_app, payload_problem can check a payload before enqueueing');
RESET ROLE;

SELECT is((SELECT run_at FROM jobq.jobs WHERE id = (SELECT later FROM mine)), now(), 'the retry by jobq_app made the job due now');

SELECT * FROM finish();
ROLLBACK;
