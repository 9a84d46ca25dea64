-- enqueue_many names its elements with "ref" and depends on earlier ones with
-- "depends_on_refs": a fan-out (a → b, c) and a fan-in (b, c → d) in one call. d runs after both
-- b and c succeeded; a ref to itself or a later element is JQ701, an unknown ref JQ704, and
-- nothing is written.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-wf');
CREATE TEMP TABLE ids AS
SELECT n, id FROM jobq.enqueue_many($$[
    {"task": "pgtap-wf", "ref": "a"},
    {"task": "pgtap-wf", "ref": "b", "depends_on_refs": ["a"]},
    {"task": "pgtap-wf", "ref": "c", "depends_on_refs": ["a"]},
    {"task": "pgtap-wf", "ref": "d", "depends_on_refs": ["b", "c"]}
]$$) WITH ORDINALITY AS e(id, n);

SELECT results_eq('SELECT j.state, j.depends_on FROM ids JOIN jobq.jobs j USING (id) ORDER BY ids.n',
    format($$ VALUES ('queued'::text, NULL::bigint[]), ('blocked', ARRAY[%1$s]), ('blocked', ARRAY[%1$s]), ('blocked', ARRAY[%2$s, %3$s]) $$,
           (SELECT id FROM ids WHERE n = 1), (SELECT id FROM ids WHERE n = 2), (SELECT id FROM ids WHERE n = 3)),
    'a is queued; b and c wait for a; d for b and c');

CREATE TEMP TABLE l1 AS SELECT * FROM jobq.claim_job('w', ARRAY['default'], 10);
SELECT is((SELECT array_agg(id) FROM l1), ARRAY[(SELECT id FROM ids WHERE n = 1)], 'only a is claimable');
SELECT jobq.complete_job(id, lease_token) FROM l1;
CREATE TEMP TABLE l2 AS SELECT * FROM jobq.claim_job('w', ARRAY['default'], 10);
SELECT is((SELECT array_agg(id ORDER BY id) FROM l2), ARRAY[(SELECT id FROM ids WHERE n = 2), (SELECT id FROM ids WHERE n = 3)], 'then b and c, in parallel');
SELECT jobq.complete_job(id, lease_token) FROM l2;
SELECT is((SELECT id FROM jobq.claim_job('w', ARRAY['default'], 10)), (SELECT id FROM ids WHERE n = 4), 'then d');

SELECT throws_ok($$ SELECT * FROM jobq.enqueue_many('[{"task": "pgtap-wf", "ref": "x", "depends_on_refs": ["x"]}]') $$,
    'JQ701', 'JOB.DEPENDENCY_CYCLE: job 1: ref "x" is job 1, not an earlier element', 'a ref to itself: JQ701');
SELECT throws_ok($$ SELECT * FROM jobq.enqueue_many('[{"task": "pgtap-wf", "depends_on_refs": ["y"]}, {"task": "pgtap-wf", "ref": "y"}]') $$,
    'JQ701', NULL, 'a ref to a later element: JQ701');
SELECT throws_ok($$ SELECT * FROM jobq.enqueue_many('[{"task": "pgtap-wf", "ref": "x"}, {"task": "pgtap-wf", "depends_on_refs": ["nope"]}]') $$,
    'JQ704', NULL, 'an unknown ref: JQ704');
SELECT is((SELECT count(*) FROM jobq.jobs), 1::bigint, 'the refused calls wrote nothing (only d is live)');

SELECT * FROM finish();
ROLLBACK;
