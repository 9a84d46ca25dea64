-- Row-level security of workflows: an application (jobq_app, app.current_store_id set) may depend
-- only on its store's jobs; another store's job and a system job are refused with JQ700 as an
-- unknown id would be (nothing of them is told), and nothing is written. It reads only its
-- store's edges (jobq.job_dependencies) and holds (jobq.sequence_holds); an operator reads all.
-- Sequence keys are per store: store A's key does not block store B's.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', 'store');
SELECT FROM jobq.define_task('pgtap-system-task');
SELECT jobq_test.tenant_jobs();
GRANT SELECT ON named TO PUBLIC;
-- An edge in store B, for the read check.
SELECT jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
                    depends_on => ARRAY[(SELECT id FROM named WHERE name = 'b_live')]);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok(format($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', depends_on => ARRAY[%s]::bigint[]) $$,
                        (SELECT id FROM named WHERE name = 'b_live')),
    'JQ700', format('JOB.DEPENDENCY_NOT_FOUND: no job %s of this store, live or finished', (SELECT id FROM named WHERE name = 'b_live')),
    'another store''s job: JQ700, as an unknown id');
SELECT throws_ok(format($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', depends_on => ARRAY[%s]::bigint[]) $$,
                        (SELECT id FROM named WHERE name = 'system_live')),
    'JQ700', NULL, 'a system job: JQ700');
SELECT throws_ok(format($$ SELECT * FROM jobq.enqueue_many('[{"task": "pgtap-store-task", "store_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "depends_on": [%s]}]') $$,
                        (SELECT id FROM named WHERE name = 'b_live')),
    'JQ700', NULL, 'the same through enqueue_many');
RESET ROLE;
SELECT results_eq('SELECT * FROM jobq_test.counts()', 'SELECT * FROM before', 'nothing was written');
SET LOCAL ROLE jobq_app;
SELECT lives_ok(format($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', depends_on => ARRAY[%s]::bigint[],
                                              sequence_key => 'shared-name') $$,
                       (SELECT id FROM named WHERE name = 'a_live')), 'its own store''s job is accepted');
SELECT is((SELECT count(*) FROM jobq.job_dependencies), 1::bigint, 'it reads its store''s edge only');
SELECT is_empty(format('SELECT * FROM jobq.job_workflow(%s)', (SELECT id FROM named WHERE name = 'b_live')),
    'job_workflow of another store''s job shows nothing');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.job_dependencies), 2::bigint, 'the engine sees both stores'' edges');

-- Sequence keys are per store.
SELECT jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', sequence_key => 'shared-name') AS b_seq \gset
SELECT is((SELECT state FROM jobq.jobs WHERE id = :b_seq), 'queued', 'store B''s job of the same key is not behind store A''s');

SELECT * FROM finish();
ROLLBACK;
