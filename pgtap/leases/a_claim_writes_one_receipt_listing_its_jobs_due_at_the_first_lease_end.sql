-- Each claim that takes jobs writes one jobq.leases row: its worker, the jobs it took, and
-- check_at, the first lease end or deadline among them; a claim that takes nothing writes none.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT count(jobq.enqueue('t', queue => 'q')) FROM generate_series(1, 5);
SELECT jobq.enqueue('t', queue => 'q', timeout => '5 seconds');

CREATE TEMP TABLE a AS SELECT id FROM jobq.claim_job('w1', ARRAY['q'], 3, '1 minute');
CREATE TEMP TABLE b AS SELECT id FROM jobq.claim_job('w2', ARRAY['q'], 10, '1 minute');
SELECT is((SELECT count(*) FROM jobq.claim_job('w3', ARRAY['q'], 10)), 0::bigint, 'setup: a third claim finds nothing');

SELECT is((SELECT count(*) FROM jobq.leases), 2::bigint, 'two claims took jobs: two receipts');
SELECT results_eq(
    $$ SELECT worker_id, job_ids, check_at FROM jobq.leases ORDER BY worker_id $$,
    $$ VALUES ('w1'::text, (SELECT array_agg(id ORDER BY id) FROM a), now() + interval '1 minute'),
              ('w2', (SELECT array_agg(id ORDER BY id) FROM b), now() + interval '5 seconds') $$,
    'each lists its worker''s jobs, due at the first lease end or deadline among them');
SELECT is_empty(
    $$ SELECT j.id FROM jobq.jobs j WHERE j.state = 'running'
       AND NOT EXISTS (SELECT 1 FROM jobq.leases l WHERE l.worker_id = j.locked_by AND j.id = ANY (l.job_ids)
                                                 AND l.check_at <= least(j.lease_expires_at, j.deadline_at)) $$,
    'every running job is listed by a receipt of its worker due no later than its lease end or deadline');

SELECT * FROM finish();
ROLLBACK;
