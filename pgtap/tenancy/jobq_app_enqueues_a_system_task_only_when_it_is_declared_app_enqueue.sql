-- Whether an application may enqueue a system task is declared per task: define_task's
-- app_enqueue, default false. Without it, jobq_app (in a store or in none, one job or a batch, on
-- the fast path or the keyed one) gets JQ407 JOB.NOT_ALLOWED and nothing is written; with it, the
-- job is enqueued. worker_runtime and operators enqueue any system task. app_enqueue is refused on
-- a store task and as NULL.
BEGIN;
SELECT plan(11);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-internal-task');
SELECT FROM jobq.define_task('pgtap-public-task', app_enqueue => true);
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');

SELECT is((SELECT app_enqueue FROM jobq.tasks WHERE name = 'pgtap-internal-task'), false, 'app_enqueue defaults to false');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-internal-task') $$, 'JQ407',
    'JOB.NOT_ALLOWED: task pgtap-internal-task is a system task that applications may not enqueue (declare it with app_enqueue => true to allow it)',
    'an application in a store cannot enqueue a system task that is not declared app_enqueue');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-public-task"}, {"task": "pgtap-internal-task"}]') $$, 'JQ407',
    'JOB.NOT_ALLOWED: job 2: task pgtap-internal-task is a system task that applications may not enqueue (declare it with app_enqueue => true to allow it)',
    'enqueue_many names the element and writes none of the batch');
RESET app.current_store_id;
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-internal-task', run_at => now() + interval '1 hour') $$, 'JQ407', NULL,
    'an application in no store is refused the same way');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-public-task') $$, 'a system task declared app_enqueue is enqueued');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-internal-task'), 0::bigint, 'no refused job was written');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-public-task'), 1::bigint, 'only the allowed one');

SET LOCAL ROLE worker_runtime;
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-internal-task') $$, 'worker_runtime enqueues any system task');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-internal-task') $$, 'an operator enqueues any system task');
RESET ROLE;

SELECT throws_ok($$ SELECT jobq.define_task('pgtap-store-task', scope => 'store', app_enqueue => true) $$, 'JQ100', NULL,
    'app_enqueue is for system tasks only');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-public-task', app_enqueue => NULL) $$, 'JQ100', NULL,
    'app_enqueue is not NULL');

SELECT * FROM finish();
ROLLBACK;
