-- The three limit setters are jobq_operator's alone: applications, their gate, runners, the
-- fan-out owner and viewers cannot execute them, and as jobq_operator each one works. Nobody but
-- the setters (which audit) changes the limits in jobq.queues.
BEGIN;
SELECT plan(24);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q');

CREATE TEMP TABLE setters (name text, args text[]);
INSERT INTO setters VALUES ('set_concurrency_limit', ARRAY['text', 'integer']), ('set_store_concurrency_limit', ARRAY['text', 'integer']),
    ('set_partition_concurrency_limit', ARRAY['text', 'text', 'integer']);

SELECT function_privs_are('jobq', s.name, s.args, r.role, CASE WHEN r.role = 'jobq_operator' THEN ARRAY['EXECUTE'] ELSE ARRAY[]::text[] END,
                          format('%s %s execute %s', r.role, CASE WHEN r.role = 'jobq_operator' THEN 'can' ELSE 'cannot' END, s.name))
FROM setters s CROSS JOIN (VALUES ('jobq_operator'), ('jobq_app'), ('jobq_app_gate'), ('worker_runtime'), ('worker_fanout_owner'), ('jobq_viewer')) AS r(role)
ORDER BY s.name, r.role;

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT jobq.set_concurrency_limit('pgtap_q', 1) $$, '42501', NULL, 'as jobq_app, set_concurrency_limit is denied');
RESET ROLE;
SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.set_store_concurrency_limit('pgtap_q', 1) $$, '42501', NULL, 'as worker_runtime, set_store_concurrency_limit is denied');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT is(jobq.set_concurrency_limit('pgtap_q', 1), true, 'as jobq_operator, set_concurrency_limit works');
SELECT is(jobq.set_store_concurrency_limit('pgtap_q', 1), true, 'as jobq_operator, set_store_concurrency_limit works');
SELECT is(jobq.set_partition_concurrency_limit('pgtap_q', 'customerId', 1), true, 'as jobq_operator, set_partition_concurrency_limit works');
SELECT throws_ok($$ UPDATE jobq.queues SET max_running = NULL $$, '42501', 'permission denied for table queues',
                 'as jobq_operator, jobq.queues changes only through the setters (which audit)');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
