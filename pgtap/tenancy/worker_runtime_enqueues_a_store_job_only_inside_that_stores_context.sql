-- worker_runtime enqueues through the gate like an application: a store job needs that store's
-- context (set_config('app.current_store_id', store, true), as a handler of a store job does);
-- outside any context (a system scheduler task) it is refused with JQ406 - the way to reach every
-- store is jobq.fan_out.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT jobq_test.tasks('pgtap-system-task');

-- Store A, store B and the system each have a live job and a finished (canceled) one (named).
SELECT jobq_test.tenant_jobs();
SELECT is((SELECT count(*) FROM (SELECT id FROM named WHERE name LIKE '%\_done') AS d CROSS JOIN LATERAL jobq.cancel_job(d.id) AS c),
          3::bigint, 'setup: a live and a finished job in store A, in store B and in the system');
GRANT SELECT ON named TO PUBLIC;
CREATE TEMP TABLE snapshot AS
SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h;

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
    'JQ406', 'JOB.TENANT_MISMATCH: store aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa is not this session''s store (app.current_store_id = unset)',
    'as worker_runtime outside a tenant context, a store job is refused with JQ406');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-store-task", "store_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}]') $$,
    'JQ406', NULL, 'so is a batch with a store job');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-system-task') $$, 'a system job needs no context');
SELECT is(set_config('app.current_store_id', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', true), 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'setup: the transaction enters store A''s context');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$, 'inside store A''s context, a job for A is enqueued');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$,
    'JQ406', 'JOB.TENANT_MISMATCH: store bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb is not this session''s store (app.current_store_id = aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa)',
    'inside store A''s context, a job for B is refused with JQ406');
RESET ROLE;
SELECT results_eq($$ SELECT coalesce(store_id::text, 'system'), count(*) FROM jobq.jobs GROUP BY 1 ORDER BY 1 $$,
                  $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::text, 2::bigint), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 1), ('system', 2) $$,
                  'only the system job and the job for A were added');

SELECT * FROM finish();
ROLLBACK;
