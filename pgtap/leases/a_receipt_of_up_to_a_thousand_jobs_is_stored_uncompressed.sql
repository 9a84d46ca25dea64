-- A claim's receipt (jobq.leases) is written by every claim: up to about 1,000 jobs its array of
-- ids is stored as it is, in its row, where PostgreSQL would compress it from 2 kB (pglz over
-- every claim of 500); a larger one is compressed and stored out of line, and still reads back
-- whole.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT count(*) FROM jobq.enqueue_many((SELECT jsonb_agg(jsonb_build_object('task', 't', 'queue', 'q')) FROM generate_series(1, 3000)));

CREATE TEMP TABLE a AS SELECT id FROM jobq.claim_job('w1', ARRAY['q'], 500);
SELECT is((SELECT cardinality(l.job_ids) FROM jobq.leases l WHERE l.worker_id = 'w1'), 500, 'setup: a claim of 500 wrote its receipt');
SELECT is((SELECT pg_column_size(l.job_ids) FROM jobq.leases l WHERE l.worker_id = 'w1'),
          (SELECT pg_column_size(array_agg(id ORDER BY id)) FROM a),
          'its 500 ids are stored at their full size: not compressed');

CREATE TEMP TABLE b AS SELECT id FROM jobq.claim_job('w2', ARRAY['q'], 2500);
SELECT ok((SELECT pg_column_size(l.job_ids) FROM jobq.leases l WHERE l.worker_id = 'w2')
          < (SELECT pg_column_size(array_agg(id ORDER BY id)) FROM b),
          'a receipt of 2,500 ids is compressed');
SELECT is((SELECT l.job_ids FROM jobq.leases l WHERE l.worker_id = 'w2'), (SELECT array_agg(id ORDER BY id) FROM b),
          'and reads back whole');

SELECT * FROM finish();
ROLLBACK;
