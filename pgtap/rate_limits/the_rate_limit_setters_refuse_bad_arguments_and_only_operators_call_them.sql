-- set_rate_limit and set_store_rate_limit refuse a limit outside 1..1000000 (JQ107), a window
-- that is not positive (JQ105) or above a day (JQ107), only one of the two NULL (JQ100) and an
-- unknown queue (JQ100), writing nothing; only jobq_operator may execute them.
BEGIN;
SELECT plan(19);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT throws_ok($$ SELECT jobq.set_rate_limit('pgtap_q', 0, '1 minute') $$, 'JQ107', NULL, 'a limit of 0 is refused');
SELECT throws_ok($$ SELECT jobq.set_rate_limit('pgtap_q', 1000001, '1 minute') $$, 'JQ107', NULL, 'a limit above 1000000 is refused');
SELECT throws_ok($$ SELECT jobq.set_rate_limit('pgtap_q', 5, '0 seconds') $$, 'JQ105', NULL, 'an empty window is refused');
SELECT throws_ok($$ SELECT jobq.set_store_rate_limit('pgtap_q', 5, '-1 minute') $$, 'JQ105', NULL, 'a negative window is refused');
SELECT throws_ok($$ SELECT jobq.set_rate_limit('pgtap_q', 5, '25 hours') $$, 'JQ107', NULL, 'a window above one day is refused');
SELECT throws_ok($$ SELECT jobq.set_rate_limit('pgtap_q', 5, NULL) $$, 'JQ100', NULL, 'a limit without a window is refused');
SELECT throws_ok($$ SELECT jobq.set_store_rate_limit('pgtap_q', NULL, '1 minute') $$, 'JQ100', NULL, 'a window without a limit is refused');
SELECT throws_ok($$ SELECT jobq.set_rate_limit('pgtap_typo', 5, '1 minute') $$, 'JQ100', NULL, 'an unknown queue is refused');
SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'no refusal wrote anything');

SELECT function_privs_are('jobq', s.name, ARRAY['text', 'integer', 'interval'], r.role,
                          CASE WHEN r.role = 'jobq_operator' THEN ARRAY['EXECUTE'] ELSE ARRAY[]::text[] END,
                          format('%s %s execute %s', r.role, CASE WHEN r.role = 'jobq_operator' THEN 'can' ELSE 'cannot' END, s.name))
FROM (VALUES ('set_rate_limit'), ('set_store_rate_limit')) AS s(name)
CROSS JOIN (VALUES ('jobq_operator'), ('jobq_app'), ('worker_runtime'), ('jobq_viewer')) AS r(role)
ORDER BY s.name, r.role;
SET LOCAL ROLE jobq_operator;
SELECT is(jobq.set_rate_limit('pgtap_q', 5, '1 minute'), true, 'as jobq_operator, set_rate_limit works');
SELECT is(jobq.set_store_rate_limit('pgtap_q', 1, '1 second'), true, 'as jobq_operator, set_store_rate_limit works');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
