-- The advice counts every store's rows (it runs as the tables' owner) and names other sessions,
-- so only operators may call it; no runtime role may call its private helpers. jobq_migrator may
-- read every session's activity (bootstrap), which the advice needs to see a held snapshot.
BEGIN;
SELECT plan(9);

SELECT ok(has_function_privilege('jobq_operator', 'jobq.upkeep_advice(bigint,integer,interval)', 'EXECUTE'), 'jobq_operator may call upkeep_advice');
SELECT ok(NOT has_function_privilege('jobq_app', 'jobq.upkeep_advice(bigint,integer,interval)', 'EXECUTE'), 'jobq_app may not');
SELECT ok(NOT has_function_privilege('worker_runtime', 'jobq.upkeep_advice(bigint,integer,interval)', 'EXECUTE'), 'worker_runtime may not');
SELECT ok(NOT has_function_privilege('jobq_viewer', 'jobq.upkeep_advice(bigint,integer,interval)', 'EXECUTE'), 'jobq_viewer may not');
SELECT ok(NOT has_function_privilege('jobq_dashboard', 'jobq.upkeep_advice(bigint,integer,interval)', 'EXECUTE'), 'jobq_dashboard may not');
SELECT ok(NOT has_function_privilege('jobq_operator', 'jobq._upkeep_held_by(interval)', 'EXECUTE')
          AND NOT has_function_privilege('jobq_operator', 'jobq._upkeep_action(bigint,bigint,bigint,bigint,bigint)', 'EXECUTE'),
    'not even operators may call the private helpers');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT * FROM jobq.upkeep_advice() $$, '42501', NULL, 'worker_runtime calling it is refused');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT lives_ok($$ SELECT * FROM jobq.upkeep_advice() $$, 'jobq_operator calling it gets its advice');
RESET ROLE;

SELECT ok(pg_has_role('jobq_migrator', 'pg_read_all_stats', 'MEMBER'), 'jobq_migrator is a member of pg_read_all_stats');

SELECT * FROM finish();
ROLLBACK;
