-- Issue 30: a worker re-declares its built-in tasks at each start and used to undo an operator's
-- app_enqueue => true. Now app_enqueue as an operator (or the owner) declared it is fixed
-- (jobq.tasks.operator_set): a runner's declaration (worker_runtime, no jobq_operator rights)
-- keeps it, while the rest of the runner's declaration (description, defaults) still lands. An
-- operator's own later declaration changes it, and a runner's declaration of a task no operator
-- touched sets it as before.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();

-- The worker declares exec at its start; the operator opens it to applications.
SET LOCAL ROLE worker_runtime;
SELECT jobq.define_task('exec', description => 'jobq worker built-in');
RESET ROLE;
SELECT is((SELECT operator_set FROM jobq.tasks WHERE name = 'exec'), '{}'::text[], 'a runner''s declaration fixes nothing');
SET LOCAL ROLE jobq_operator;
SELECT jobq.define_task('exec', description => 'jobq worker built-in', app_enqueue => true);
RESET ROLE;
SELECT is((SELECT operator_set FROM jobq.tasks WHERE name = 'exec'), '{app_enqueue}'::text[], 'an operator''s declaration fixes app_enqueue');

-- The worker starts again and declares exec as it always does (app_enqueue false).
SET LOCAL ROLE worker_runtime;
SELECT jobq.define_task('exec', description => 'jobq worker built-in, version 2', max_attempts => 3);
RESET ROLE;
SELECT is((SELECT app_enqueue FROM jobq.tasks WHERE name = 'exec'), true, 'the runner''s declaration keeps the operator''s app_enqueue');
SELECT is((SELECT (description, max_attempts)::text FROM jobq.tasks WHERE name = 'exec'), '("jobq worker built-in, version 2",3)',
          'the rest of the runner''s declaration lands');

-- Declaring it the same way again rewrites nothing.
CREATE TEMP TABLE stamp AS SELECT updated_at, xmin::text AS x FROM jobq.tasks WHERE name = 'exec';
SET LOCAL ROLE worker_runtime;
SELECT jobq.define_task('exec', description => 'jobq worker built-in, version 2', max_attempts => 3);
RESET ROLE;
SELECT is((SELECT xmin::text FROM jobq.tasks WHERE name = 'exec'), (SELECT x FROM stamp), 'a runner''s unchanged declaration rewrites nothing');

-- The operator closes it again: that is the operator's word too.
SET LOCAL ROLE jobq_operator;
SELECT jobq.define_task('exec', description => 'jobq worker built-in, version 2', max_attempts => 3, app_enqueue => false);
RESET ROLE;
SELECT is((SELECT app_enqueue FROM jobq.tasks WHERE name = 'exec'), false, 'an operator''s later declaration changes it');

-- A task no operator touched follows its runner's declaration.
SET LOCAL ROLE worker_runtime;
SELECT jobq.define_task('pgtap-runner-task', app_enqueue => true);
SELECT jobq.define_task('pgtap-runner-task', app_enqueue => false);
RESET ROLE;
SELECT is((SELECT app_enqueue FROM jobq.tasks WHERE name = 'pgtap-runner-task'), false,
          'a runner changes app_enqueue of a task no operator fixed');
SELECT is((SELECT operator_set FROM jobq.tasks WHERE name = 'pgtap-runner-task'), '{}'::text[], 'and fixes nothing');

SELECT * FROM finish();
ROLLBACK;
