-- worker_runtime cannot do what is an operator's to do — drain, resume or detach a worker, remove
-- a schedule — nor call the private functions behind maintain and the leadership (they take a
-- clock, p_now, of the caller's choosing), nor write the scheduler's tables: it cannot forge the
-- leadership, a worker's state or a slot's run. The denied calls change nothing.
BEGIN;
SELECT plan(21);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-tick', '@yearly', 'pgtap-tick');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 4);
SELECT FROM jobq.acquire_leadership('pgtap-w1');
CREATE TEMP TABLE before AS
SELECT (SELECT array_agg(s) FROM jobq.schedules s) AS schedules, (SELECT array_agg(w) FROM jobq.workers w) AS workers,
       (SELECT array_agg(l) FROM jobq.leader l) AS leader, (SELECT count(*) FROM jobq.schedule_runs) AS runs;

SELECT function_privs_are('jobq', 'drain_worker', ARRAY['text'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute drain_worker');
SELECT function_privs_are('jobq', 'resume_worker', ARRAY['text'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute resume_worker');
SELECT function_privs_are('jobq', 'detach_worker', ARRAY['text'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute detach_worker');
SELECT function_privs_are('jobq', 'unschedule', ARRAY['text'], 'worker_runtime', ARRAY[]::text[], 'worker_runtime cannot execute unschedule');
SELECT is_empty(
    $$ SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND p.proname IN ('_run_schedule', '_enqueue_due_slots',
                                                  '_settings_json', '_release_worker_leases', '_set_worker_state', '_acquire_leadership', '_maintain')
         AND has_function_privilege('worker_runtime', p.oid, 'EXECUTE') $$,
    'worker_runtime can execute none of the private functions of schedules, workers and leadership');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.drain_worker('pgtap-w1') $$, '42501', 'permission denied for function drain_worker', 'as worker_runtime, drain_worker is denied');
SELECT throws_ok($$ SELECT jobq.resume_worker('pgtap-w1') $$, '42501', 'permission denied for function resume_worker', 'as worker_runtime, resume_worker is denied');
SELECT throws_ok($$ SELECT jobq.detach_worker('pgtap-w1') $$, '42501', 'permission denied for function detach_worker', 'as worker_runtime, detach_worker is denied');
SELECT throws_ok($$ SELECT jobq.unschedule('pgtap-tick') $$, '42501', 'permission denied for function unschedule', 'as worker_runtime, unschedule is denied');
SELECT throws_ok($$ SELECT jobq._maintain(NULL, NULL, now() + interval '1 day') $$, '42501', 'permission denied for function _maintain',
                 'as worker_runtime, the private _maintain (which moves the clock) is denied');
SELECT throws_ok($$ SELECT jobq._acquire_leadership('pgtap-evil', '1 hour', now() + interval '1 day') $$, '42501',
                 'permission denied for function _acquire_leadership', 'as worker_runtime, the private _acquire_leadership is denied');
SELECT throws_ok($$ SELECT * FROM jobq._enqueue_due_slots(now() + interval '1 year') $$, '42501', 'permission denied for function _enqueue_due_slots',
                 'as worker_runtime, the private _enqueue_due_slots is denied');
SELECT throws_ok($$ SELECT jobq._release_worker_leases('pgtap-w1', now()) $$, '42501', 'permission denied for function _release_worker_leases',
                 'as worker_runtime, the private _release_worker_leases is denied');
SELECT throws_ok($$ SELECT jobq._set_worker_state('pgtap-w1', 'active', 'resume_worker') $$, '42501', 'permission denied for function _set_worker_state',
                 'as worker_runtime, the private _set_worker_state is denied');
SELECT throws_ok($$ UPDATE jobq.leader SET holder = 'pgtap-evil', epoch = epoch + 1 $$, '42501', 'permission denied for table leader',
                 'as worker_runtime, forging the leadership is denied');
SELECT throws_ok($$ UPDATE jobq.workers SET state = 'active' $$, '42501', 'permission denied for table workers',
                 'as worker_runtime, writing a worker''s state is denied');
SELECT throws_ok($$ INSERT INTO jobq.workers (id, node, queues, concurrency) VALUES ('pgtap-evil', 'n', ARRAY['default'], 1) $$, '42501',
                 'permission denied for table workers', 'as worker_runtime, inserting a worker directly is denied');
SELECT throws_ok($$ INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome) VALUES ('pgtap-tick', now(), 'skipped') $$, '42501',
                 'permission denied for table schedule_runs', 'as worker_runtime, recording a slot directly is denied');
SELECT throws_ok($$ UPDATE jobq.schedules SET next_slot_at = now() $$, '42501', 'permission denied for table schedules',
                 'as worker_runtime, moving a schedule directly is denied');
SELECT throws_ok($$ DELETE FROM jobq.schedules $$, '42501', 'permission denied for table schedules',
                 'as worker_runtime, deleting a schedule directly is denied');
RESET ROLE;

SELECT results_eq(
    $$ SELECT (SELECT array_agg(s) FROM jobq.schedules s), (SELECT array_agg(w) FROM jobq.workers w), (SELECT array_agg(l) FROM jobq.leader l),
              (SELECT count(*) FROM jobq.schedule_runs) $$,
    $$ SELECT schedules, workers, leader, runs FROM before $$,
    'the denied calls changed nothing');

SELECT * FROM finish();
ROLLBACK;
