-- The doorbell functions are the runner's: worker_runtime may execute hold_doorbell,
-- doorbell_quiet and release_doorbell, and they work under it; applications and operators may not
-- (an application holding a doorbell would only make enqueues notify, but it has no business
-- there).
BEGIN;
SELECT plan(7);
SELECT jobq_test.reset();

SELECT function_privs_are('jobq', 'hold_doorbell', ARRAY['text[]'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute hold_doorbell');
SELECT function_privs_are('jobq', 'doorbell_quiet', ARRAY['text[]'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute doorbell_quiet');
SELECT function_privs_are('jobq', 'release_doorbell', ARRAY['text[]'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute release_doorbell');
SELECT is_empty(
    $$ SELECT r.role || ' ' || f.fn FROM unnest(ARRAY['jobq_app', 'jobq_operator', 'jobq_app_gate']) AS r(role)
       CROSS JOIN unnest(ARRAY['jobq.hold_doorbell(text[])', 'jobq.doorbell_quiet(text[])', 'jobq.release_doorbell(text[])']) AS f(fn)
       WHERE has_function_privilege(r.role, f.fn, 'EXECUTE') $$,
    'jobq_app, jobq_operator and jobq_app_gate cannot execute them');

SET LOCAL ROLE worker_runtime;
SELECT ok(jobq.hold_doorbell(ARRAY['privileges_bell']), 'as worker_runtime, hold_doorbell holds the doorbell');
SELECT ok(jobq.doorbell_quiet(ARRAY['privileges_bell']), 'as worker_runtime, doorbell_quiet answers');
SELECT lives_ok($$ SELECT jobq.release_doorbell(ARRAY['privileges_bell']) $$, 'as worker_runtime, release_doorbell lets go');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
