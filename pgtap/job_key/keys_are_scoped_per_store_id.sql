-- One live job per (store_id, job_key); jobs without a store share one key space. A task is either
-- store-scoped or system, so the store jobs are of task sync and the system jobs of task sync-system;
-- the key space does not depend on the task.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('sync', scope => 'store');
SELECT jobq_test.tasks('sync-system');

CREATE TEMP TABLE ids AS
SELECT jobq.enqueue('sync', job_key => 'pgtap:sync', store_id => '11111111-1111-1111-1111-111111111111') AS store_a,
       jobq.enqueue('sync', job_key => 'pgtap:sync', store_id => '22222222-2222-2222-2222-222222222222') AS store_b,
       jobq.enqueue('sync-system', job_key => 'pgtap:sync') AS system_1;
CREATE TEMP TABLE more AS
SELECT jobq.enqueue('sync-system', '{"again": true}', job_key => 'pgtap:sync') AS system_2,
       jobq.enqueue('sync', '{"again": true}', job_key => 'pgtap:sync', store_id => '11111111-1111-1111-1111-111111111111') AS store_a_2;

SELECT isnt((SELECT store_a FROM ids), (SELECT store_b FROM ids), 'the same key in two stores makes two jobs');
SELECT isnt((SELECT system_1 FROM ids), (SELECT store_a FROM ids), 'a system job (no store) does not share a key with a store''s job');
SELECT is((SELECT system_2 FROM more), (SELECT system_1 FROM ids), 'system jobs with the same key share one key space');
SELECT is((SELECT store_a_2 FROM more), (SELECT store_a FROM ids), 'the same key in the same store is the same job');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:sync'), 3::bigint, 'three live jobs hold key sync: store a, store b, system');

SELECT * FROM finish();
ROLLBACK;
