-- jobq.workflow_graph draws the workflow a job belongs to: from the fan-in child of a fan-out /
-- fan-in (root -> a, b, c -> join -> after) every node is there, ancestors at negative depths and
-- descendants at positive ones, each with its task, state and its parents among the nodes (the
-- edges); a finished parent shows its history state, a pruned one state pruned. A job in a
-- sequence has its live neighbours ahead and behind. A job without workflow is its own only node;
-- an unknown id has no rows. max_nodes is clamped, never an error.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-wf', 'pgtap-join');
CREATE TEMP TABLE ids (name text, id bigint);
INSERT INTO ids
SELECT (ARRAY['root', 'a', 'b', 'c', 'join', 'after'])[e.n], e.id
FROM jobq.enqueue_many($$[{"task": "pgtap-wf", "ref": "root", "queue": "wf"},
                                 {"task": "pgtap-wf", "ref": "a", "depends_on_refs": ["root"], "queue": "wf"},
                                 {"task": "pgtap-wf", "ref": "b", "depends_on_refs": ["root"], "queue": "wf"},
                                 {"task": "pgtap-wf", "ref": "c", "depends_on_refs": ["root"], "queue": "wf"},
                                 {"task": "pgtap-join", "ref": "join", "depends_on_refs": ["a", "b", "c"], "queue": "wf"},
                                 {"task": "pgtap-wf", "ref": "after", "depends_on_refs": ["join"], "queue": "wf"}]$$) WITH ORDINALITY AS e(id, n);
-- The root succeeds (it moves to the history): a, b and c are released.
SELECT jobq.complete_job(c.id, c.lease_token) FROM jobq.claim_job('w', ARRAY['wf'], 1) AS c;

SELECT results_eq(
    format('SELECT id, task, state, relation, depth, parent_ids FROM jobq.workflow_graph(%s)', (SELECT id FROM ids WHERE name = 'join')),
    format($$ VALUES (%1$s::bigint, 'pgtap-wf'::text, 'succeeded'::text, 'ancestor'::text, -2, '{}'::bigint[]),
                     (%2$s, 'pgtap-wf', 'queued', 'ancestor', -1, ARRAY[%1$s]::bigint[]),
                     (%3$s, 'pgtap-wf', 'queued', 'ancestor', -1, ARRAY[%1$s]::bigint[]),
                     (%4$s, 'pgtap-wf', 'queued', 'ancestor', -1, ARRAY[%1$s]::bigint[]),
                     (%5$s, 'pgtap-join', 'blocked', 'job', 0, ARRAY[%2$s, %3$s, %4$s]::bigint[]),
                     (%6$s, 'pgtap-wf', 'blocked', 'descendant', 1, ARRAY[%5$s]::bigint[]) $$,
           (SELECT id FROM ids WHERE name = 'root'), (SELECT id FROM ids WHERE name = 'a'), (SELECT id FROM ids WHERE name = 'b'),
           (SELECT id FROM ids WHERE name = 'c'), (SELECT id FROM ids WHERE name = 'join'), (SELECT id FROM ids WHERE name = 'after')),
    'from the fan-in: every node with its task, state, depth and parents among the nodes');
SELECT is((SELECT count(*) FROM jobq.workflow_graph((SELECT id FROM ids WHERE name = 'root'))), 6::bigint,
    'from the root (in the history): the same six nodes, all descendants');
SELECT is((SELECT bool_or(truncated) FROM jobq.workflow_graph((SELECT id FROM ids WHERE name = 'root'))), false,
    'a whole workflow is not truncated');
SELECT is((SELECT string_agg(relation || ':' || depth, ',' ORDER BY depth, id) FROM jobq.workflow_graph((SELECT id FROM ids WHERE name = 'a'))),
    'ancestor:-1,job:0,descendant:1,descendant:2',
    'from a branch: its parent, the join and after; not its siblings');

-- A parent pruned from the history is a node in state pruned with no task.
DELETE FROM jobq.job_history WHERE id = (SELECT id FROM ids WHERE name = 'root');
SELECT results_eq(
    format('SELECT task, state FROM jobq.workflow_graph(%s) WHERE relation = ''ancestor''', (SELECT id FROM ids WHERE name = 'a')),
    $$ VALUES (NULL::text, 'pruned'::text) $$, 'a pruned parent: state pruned');

-- A sequence: the live jobs just ahead and just behind.
SELECT jobq.enqueue('pgtap-wf', queue => 'seq', sequence_key => 'ledger') AS s1 \gset
SELECT jobq.enqueue('pgtap-wf', queue => 'seq', sequence_key => 'ledger') AS s2 \gset
SELECT jobq.enqueue('pgtap-wf', queue => 'seq', sequence_key => 'ledger') AS s3 \gset
SELECT jobq.enqueue('pgtap-wf', queue => 'seq', sequence_key => 'ledger') AS s4 \gset
SELECT jobq.enqueue('pgtap-wf', queue => 'seq', sequence_key => 'other') AS o1 \gset
SELECT results_eq(format('SELECT id, relation, parent_ids FROM jobq.workflow_graph(%s)', :s2),
    format($$ VALUES (%s::bigint, 'sequence_ahead'::text, '{}'::bigint[]), (%s, 'job', '{}'), (%s, 'sequence_behind', '{}') $$, :s1, :s2, :s3),
    'a sequence''s job: the job ahead and the job behind, no more');
SELECT results_eq(format('SELECT id, relation FROM jobq.workflow_graph(%s)', :s4),
    format($$ VALUES (%s::bigint, 'sequence_ahead'::text), (%s, 'job') $$, :s3, :s4), 'its last job: only the job ahead');

SELECT results_eq(format('SELECT id, relation, depth, parent_ids, truncated FROM jobq.workflow_graph(%s)', :o1),
    format($$ VALUES (%s::bigint, 'job'::text, 0, '{}'::bigint[], false) $$, :o1), 'a job alone: itself only');
SELECT is_empty('SELECT * FROM jobq.workflow_graph(-1)', 'an unknown id: no rows');
SELECT is((SELECT count(*) FROM jobq.workflow_graph((SELECT id FROM ids WHERE name = 'join'), max_nodes => 0)), 1::bigint,
    'max_nodes below 1 is clamped to 1: the job itself');

SELECT * FROM finish();
ROLLBACK;
