-- A keyed enqueue never crosses scope. An application (jobq_app), in its store or in none, cannot
-- give a system job a job_key, so it cannot merge into, rewrite, postpone or dedupe into a waiting
-- system job (replace, preserve_run_at, unsafe_dedupe alike) or a cron slot's job: JQ407
-- JOB.NOT_ALLOWED, and nothing changes. Keys that start with schedule: belong to cron slots: not
-- even worker_runtime writes one. Its own store's keys still merge.
BEGIN;
SELECT plan(12);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-system-task', app_enqueue => true);
SELECT jobq_test.tasks('pgtap-scheduler');
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');

-- A waiting system job with a key, and a cron slot's job (the engine enqueues it under the key
-- schedule:<name>:<slot>, which anyone can predict).
SELECT FROM jobq.enqueue('pgtap-system-task', '{"v": 1}', job_key => 'nightly-report', max_attempts => 5);
SELECT FROM jobq.schedule('pgtap-every-minute', '* * * * *', 'pgtap-scheduler');
SELECT FROM jobq._maintain(NULL, NULL, now() + interval '2 minutes');
SELECT ok(EXISTS (SELECT 1 FROM jobq.jobs WHERE job_key LIKE 'schedule:pgtap-every-minute:%'), 'setup: a cron slot''s job waits under its schedule: key');
CREATE TEMP TABLE slot AS SELECT job_key FROM jobq.jobs WHERE job_key LIKE 'schedule:pgtap-every-minute:%' ORDER BY id LIMIT 1;
GRANT SELECT ON slot TO PUBLIC;
CREATE TEMP TABLE snapshot AS SELECT to_jsonb(j) AS r FROM jobq.jobs j;

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-system-task', '{"v": 2}', job_key => 'nightly-report', run_at => '2100-01-01', max_attempts => 1) $$,
    'JQ407', 'JOB.NOT_ALLOWED: task pgtap-system-task: applications may not give a system job a job_key',
    'replace: an application in a store cannot rewrite or postpone a waiting system job through its key');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-system-task', job_key => 'nightly-report', job_key_mode => 'preserve_run_at') $$,
    'JQ407', NULL, 'preserve_run_at: refused the same way');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-system-task', job_key => 'nightly-report', job_key_mode => 'unsafe_dedupe') $$,
    'JQ407', NULL, 'unsafe_dedupe: refused too, so the id of a system job is not handed out');
SELECT throws_ok(format($$ SELECT jobq.enqueue('pgtap-scheduler', job_key => %L, run_at => '2100-01-01') $$, (SELECT job_key FROM slot)),
    'JQ407', NULL, 'a cron slot''s key: an application cannot postpone or kill the schedulers');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-store-task", "store_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"},
                                               {"task": "pgtap-system-task", "job_key": "nightly-report"}]') $$,
    'JQ407', 'JOB.NOT_ALLOWED: job 2: task pgtap-system-task: applications may not give a system job a job_key',
    'enqueue_many names the keyed system element and writes none of the batch');
RESET app.current_store_id;
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-system-task', job_key => 'nightly-report', run_at => '2100-01-01') $$,
    'JQ407', NULL, 'an application in no store is refused the same way');
RESET ROLE;

SET LOCAL ROLE worker_runtime;
SELECT throws_ok(format($$ SELECT jobq.enqueue('pgtap-scheduler', job_key => %L, run_at => '2100-01-01') $$, (SELECT job_key FROM slot)),
    'JQ407', NULL, 'worker_runtime cannot write a schedule: key either');
RESET ROLE;

SELECT is_empty($$ SELECT to_jsonb(j) FROM jobq.jobs j EXCEPT SELECT r FROM snapshot $$, 'no job changed');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT count(*) FROM snapshot), 'and none was added');

-- What stays allowed: a keyed store job of the session's store merges; operators key system jobs.
SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT is(jobq.enqueue('pgtap-store-task', '{"v": 2}', job_key => 'k', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'),
          jobq.enqueue('pgtap-store-task', '{"v": 3}', job_key => 'k', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'),
          'an application''s keyed enqueue merges into its own store''s job');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-system-task', '{"v": 3}', job_key => 'nightly-report') $$, 'an operator may rewrite a keyed system job');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
