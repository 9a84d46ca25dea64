-- jobq.fan_out pins jit off for its call: planned for many stores, its statements cost more
-- than jit_above_cost, and compiling them took 0.7 s of a 3.3 s fan-out of 100,000 stores (the
-- first call of a session, docs/benchmarks.md#the-fan-out). Whatever the session's jit, the
-- call's own setting is off, and the session's is left as it was.
BEGIN;
SELECT plan(3);

SELECT ok((SELECT 'jit=off' = ANY (p.proconfig) FROM pg_proc p
            WHERE p.oid = 'jobq.fan_out(text,jsonb,text,text,timestamp with time zone)'::regprocedure),
          'jobq.fan_out sets jit = off for its call');
SELECT jobq_test.reset();
SELECT jobq_test.stores('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-fan-jit', scope => 'store');
SET LOCAL jit = on;
SET LOCAL ROLE worker_runtime;
SELECT is(jobq.fan_out('pgtap-fan-jit', '{}'::jsonb), 2, 'a fan-out with jit on in the session enqueues one job a store');
RESET ROLE;
SELECT is(current_setting('jit'), 'on', 'and the session''s jit is as it was after the call');

SELECT * FROM finish();
ROLLBACK;
