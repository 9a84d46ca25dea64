-- A chain of 10,000 jobs, each depending on the one before (built by enqueue_many refs), is
-- canceled whole when its root is canceled: one recursive query, not one trigger level per link
-- (which would exhaust the stack). maintain() and claims of other queues keep working.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-wf');
SELECT jobq.enqueue_many((
    SELECT jsonb_agg(CASE WHEN n = 1 THEN jsonb_build_object('task', 'pgtap-wf', 'ref', 'n1', 'queue', 'chain')
                          ELSE jsonb_build_object('task', 'pgtap-wf', 'ref', 'n' || n, 'depends_on_refs', jsonb_build_array('n' || (n - 1)),
                                                  'queue', 'chain') END ORDER BY n)
    FROM generate_series(1, 10000) AS n));
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'blocked'), 9999::bigint, '9,999 links wait');
SELECT jobq.enqueue('pgtap-wf', queue => 'other') AS other \gset

SELECT lives_ok($$ SELECT jobq.cancel_job((SELECT min(id) FROM jobq.jobs WHERE queue = 'chain')) $$, 'the root is canceled');
SELECT is((SELECT count(*) FROM jobq.job_history WHERE state = 'canceled' AND queue = 'chain'), 10000::bigint, 'the whole chain is canceled');
SELECT is((SELECT id FROM jobq.claim_job('w', ARRAY['other'], 1)), :other::bigint, 'another queue''s claim works');

SELECT * FROM finish();
ROLLBACK;
