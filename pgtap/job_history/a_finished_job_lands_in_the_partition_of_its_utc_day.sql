-- jobq.job_history is partitioned by finished_at, one partition a UTC day (migration 00037): a
-- finished job lands in its day's partition, whose indexes a plain success writes once (the
-- unique index on id; the BRIN on finished_at takes no entry for a row in a new page range, and
-- every other index is partial on what a plain success is not: dead, keyed, with parents, in a
-- batch). The bench counts the entries from the WAL (bench/writes.go); this is the schema half.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT lives_ok($$ SELECT jobq.maintain() $$, 'setup: maintain made today''s partition and the next two days''');

CREATE TEMP TABLE today AS
SELECT ('jobq.job_history_p' || to_char(now() AT TIME ZONE 'UTC', 'YYYYMMDD'))::regclass AS part;

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 3) $$, 'setup: three jobs');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 3);
SELECT is((SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c)) WHERE outcome = 'succeeded'),
          3::bigint, 'setup: three jobs succeeded');

SELECT is((SELECT array_agg(DISTINCT h.tableoid::regclass) FROM jobq.job_history h),
          ARRAY[(SELECT part FROM today)], 'the three finished jobs are in the partition of today (UTC)');

SELECT set_eq($$
    SELECT am.amname || ' (' || pg_catalog.pg_get_indexdef(i.indexrelid, 1, true) || ')' || CASE WHEN i.indisunique THEN ' unique' ELSE '' END
    FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid JOIN pg_catalog.pg_am am ON am.oid = c.relam
    WHERE i.indrelid = (SELECT part FROM today) AND i.indpred IS NULL $$,
    ARRAY['btree (id) unique', 'brin (finished_at)'],
    'a day''s indexes without a predicate are the unique btree on id and a BRIN on finished_at');

SELECT set_eq($$
    SELECT pg_catalog.pg_get_expr(i.indpred, i.indrelid)
    FROM pg_catalog.pg_index i WHERE i.indrelid = (SELECT part FROM today) AND i.indpred IS NOT NULL $$,
    ARRAY['(state = ''dead''::text)', '(job_key IS NOT NULL)', '(depends_on IS NOT NULL)', '(batch_id IS NOT NULL)'],
    'its other indexes hold dead, keyed, dependent or batched jobs only: none takes a plain success');

SELECT * FROM finish();
ROLLBACK;
