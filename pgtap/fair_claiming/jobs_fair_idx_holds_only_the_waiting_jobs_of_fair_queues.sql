-- jobs_fair_idx, read by the fair pick only, is partial on the ready (waiting or running) jobs of
-- fair queues (jobq.jobs.fair), so a job of a plain queue writes no entry into it; a fair claim
-- still reads it. It names no column a claim changes (migration 00036).
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT is(pg_get_indexdef('jobq.jobs_fair_idx'::regclass),
          'CREATE INDEX jobs_fair_idx ON jobq.jobs USING btree (queue, priority, COALESCE(store_id, ''00000000-0000-0000-0000-000000000000''::uuid), run_at, id) WHERE (ready AND fair)',
          'the key as before; the predicate names fair beside ready');
SELECT col_not_null('jobq', 'jobs', 'fair', 'jobq.jobs.fair is NOT NULL');
SELECT col_default_is('jobq', 'jobs', 'fair', 'false', 'and false unless the insert says otherwise');

SELECT * FROM finish();
ROLLBACK;
