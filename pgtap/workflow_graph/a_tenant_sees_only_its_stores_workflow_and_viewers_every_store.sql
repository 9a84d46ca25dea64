-- jobq.workflow_graph runs as its caller under row-level security: an application (jobq_app with
-- app.current_store_id) reads its store's workflow and gets no row for another store's job, as
-- for an unknown id; jobq_viewer reads every store's.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', 'store');
SELECT FROM jobq.define_task('pgtap-system-task');
SELECT jobq_test.tenant_jobs();
GRANT SELECT ON named TO PUBLIC;
SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
                    depends_on => ARRAY[(SELECT id FROM named WHERE name = 'a_live')]) AS a_child \gset
SELECT jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
                    depends_on => ARRAY[(SELECT id FROM named WHERE name = 'b_live')]) AS b_child \gset

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq(format('SELECT id, relation FROM jobq.workflow_graph(%s)', :a_child),
    format($$ VALUES (%s::bigint, 'ancestor'::text), (%s, 'job') $$, (SELECT id FROM named WHERE name = 'a_live'), :a_child),
    'store A reads its workflow');
SELECT is_empty(format('SELECT * FROM jobq.workflow_graph(%s)', :b_child), 'another store''s job: no rows');
SELECT is_empty(format('SELECT * FROM jobq.workflow_graph(%s)', (SELECT id FROM named WHERE name = 'b_live')),
    'nor from its parent');
RESET ROLE;
SET LOCAL ROLE jobq_viewer;
SELECT is((SELECT count(*) FROM jobq.workflow_graph(:b_child)), 2::bigint, 'a viewer reads store B''s workflow');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
