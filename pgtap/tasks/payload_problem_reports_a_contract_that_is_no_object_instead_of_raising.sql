-- payload_problem is pure and takes any JSON: a contract that is no object, or a payload that is
-- no object, is reported as a problem (or NULL), never raised as a raw 22023 "cannot call
-- jsonb_each_text on a non-object" (a fuzzer find). Applications, runners and operators may call it.
BEGIN;
SELECT plan(5);

SELECT lives_ok($$ SELECT jobq.payload_problem('[]', '{}') $$, 'a contract that is a JSON array does not raise');
SELECT lives_ok($$ SELECT jobq.payload_problem('"x"', '[1]') $$, 'nor a string contract with an array payload');
SELECT isnt(jobq.payload_problem('[]', '{}'), NULL, 'a contract that is no object is reported as a problem');
SELECT is(jobq.payload_problem('{"n": "integer"}', '{"n": 1}'), NULL, 'a payload that keeps its contract has no problem');
SET LOCAL ROLE jobq_app;
SELECT is(jobq.payload_problem('{"n": "integer"}', '{}'), 'required key n is missing', 'jobq_app checks a payload before enqueueing');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
