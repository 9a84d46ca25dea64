-- A chain 10,000 deep (each job depending on the one before, built by enqueue_many refs) is
-- walked only as far as max_nodes: from its middle, the nodes are split between ancestors and
-- descendants, level by level, each id once, truncated true on every row; from its last job, the
-- nearest 199 ancestors. 1000 is the most one call returns. The walk does not recurse (no stack).
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-wf');
CREATE TEMP TABLE chain AS
SELECT e.n, e.id
FROM jobq.enqueue_many((
    SELECT jsonb_agg(CASE WHEN n = 1 THEN jsonb_build_object('task', 'pgtap-wf', 'ref', 'n1', 'queue', 'chain')
                          ELSE jsonb_build_object('task', 'pgtap-wf', 'ref', 'n' || n, 'depends_on_refs', jsonb_build_array('n' || (n - 1)),
                                                  'queue', 'chain') END ORDER BY n)
    FROM generate_series(1, 10000) AS n)) WITH ORDINALITY AS e(id, n);

CREATE TEMP TABLE mid AS SELECT * FROM jobq.workflow_graph((SELECT id FROM chain WHERE n = 5000), 200);
SELECT is((SELECT count(*) FROM mid), 200::bigint, 'from the middle: 200 nodes');
SELECT is((SELECT count(DISTINCT id) FROM mid), 200::bigint, 'each once');
SELECT is((SELECT bool_and(truncated) FROM mid), true, 'truncated on every row');
SELECT results_eq('SELECT min(depth), max(depth) FROM mid', 'VALUES (-100, 99)', 'a level up and a level down in turn');
SELECT is((SELECT count(*) FROM mid m JOIN chain c USING (id) WHERE m.depth <> c.n - 5000), 0::bigint,
    'each node at its distance along the chain');
SELECT results_eq(format('SELECT min(depth), count(*) FROM jobq.workflow_graph(%s, 200)', (SELECT id FROM chain WHERE n = 10000)),
    'VALUES (-199, 200::bigint)', 'from its last job: the nearest 199 ancestors');
SELECT is((SELECT count(*) FROM jobq.workflow_graph((SELECT id FROM chain WHERE n = 1), 100000)), 1000::bigint,
    'max_nodes is at most 1000');

SELECT * FROM finish();
ROLLBACK;
