-- parent_results lists the parents of a job (jobq._parents_of) with their state and result: a
-- succeeded parent with what it returned, a live one with no result, a parent of another store
-- never (a dependency cannot cross stores; the check holds even if an edge did). The test stands
-- in its own jobq._parents_of for the transaction.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT FROM jobq.define_task('pgtap-store-task', 'store');

CREATE TEMP TABLE job AS
SELECT jobq.enqueue('t', queue => 'p') AS p1, jobq.enqueue('t', queue => 'p') AS p2, jobq.enqueue('t', queue => 'live') AS p3,
       jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', queue => 'b') AS other,
       jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', queue => 'a') AS a_child,
       jobq.enqueue('t', queue => 'child') AS child;
GRANT SELECT ON job TO PUBLIC;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['p'], 2);
SELECT FROM c, jobq.complete_job(c.id, c.lease_token, jsonb_build_object('n', c.id));

CREATE OR REPLACE FUNCTION jobq._parents_of(p_job_id bigint) RETURNS SETOF bigint LANGUAGE sql STABLE AS $$
    SELECT x FROM pg_temp.job j, unnest(ARRAY[j.p1, j.p2, j.p3, j.other]) AS x WHERE p_job_id = j.child
    UNION ALL
    SELECT j.other FROM pg_temp.job j WHERE p_job_id = j.a_child
$$;

SELECT results_eq(
    $$ SELECT parent_id, state, result FROM jobq.parent_results((SELECT child FROM job)) WHERE parent_id <> (SELECT other FROM job) $$,
    $$ SELECT p1, 'succeeded'::text, jsonb_build_object('n', p1) FROM job
       UNION ALL SELECT p2, 'succeeded', jsonb_build_object('n', p2) FROM job
       UNION ALL SELECT p3, 'queued', NULL FROM job $$,
    'each parent in id order, with its state and the result of a succeeded one');
SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT is_empty($$ SELECT * FROM jobq.parent_results((SELECT a_child FROM job)) $$,
                'an application is never shown a parent of another store');
RESET app.current_store_id;
RESET ROLE;
SELECT throws_ok('SELECT * FROM jobq.parent_results(NULL)', 'JQ100', NULL, 'a NULL id is JQ100');

SELECT * FROM finish();
ROLLBACK;
