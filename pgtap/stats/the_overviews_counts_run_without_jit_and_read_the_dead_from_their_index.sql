-- What the dashboard's overview reads at a million jobs (docs/benchmarks.md#the-dashboards-overview):
-- jobq._stats and jobq.queue_minutes pin jit off for their call (planned without their arguments'
-- values, their statements are estimated above jit_above_cost, and compiling queue_minutes took
-- 258 ms of a 284 ms call whose work is 27 ms); _stats sorts the hour's percentiles in memory; and
-- job_history_dead_idx carries the queue and the store, so the last day's dead jobs are counted
-- from the index alone. With jit on in the session both still answer, and the session's jit and
-- work_mem are left as they were.
BEGIN;
SELECT plan(7);

SELECT ok((SELECT 'jit=off' = ANY (p.proconfig) FROM pg_proc p WHERE p.oid = 'jobq._stats(text,uuid)'::regprocedure),
          'jobq._stats (the body of jobq.stats and jobq.queue_list) sets jit = off for its call');
SELECT ok((SELECT 'work_mem=32MB' = ANY (p.proconfig) FROM pg_proc p WHERE p.oid = 'jobq._stats(text,uuid)'::regprocedure),
          'and work_mem = 32MB, so that the percentiles of an hour of history sort in memory');
SELECT ok((SELECT 'jit=off' = ANY (p.proconfig) FROM pg_proc p
            WHERE p.oid = 'jobq.queue_minutes(timestamp with time zone)'::regprocedure),
          'jobq.queue_minutes (the overview''s chart) sets jit = off for its call');
SELECT is((SELECT array_agg(a.attname::text ORDER BY k.n)
           FROM pg_index i
           CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
           JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
           WHERE i.indexrelid = 'jobq.job_history_dead_idx'::regclass),
          ARRAY['finished_at', 'task', 'queue', 'store_id'],
          'job_history_dead_idx holds finish time and task as its key and carries queue and store, for an index-only count');

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-nojit', queue => 'pgtap_nojit');
INSERT INTO jobq.job_history (id, task, queue, payload, priority, run_at, state, attempt, max_attempts,
                              claimed_at, created_at, updated_at, finished_at, last_error)
VALUES (900001, 'pgtap-nojit', 'pgtap_nojit', '{}', 0, now() - interval '3 hours', 'dead', 3, 3,
        now() - interval '3 hours', now() - interval '3 hours', now() - interval '2 hours', now() - interval '2 hours', 'boom');
SET LOCAL jit = on;
SET LOCAL jit_above_cost = 0;
SET LOCAL work_mem = '1MB';
SELECT results_eq($$ SELECT queue, dead_last_hour, dead_last_day FROM jobq.stats('pgtap_nojit') $$,
                  $$ VALUES ('pgtap_nojit'::text, 0::bigint, 1::bigint) $$,
                  'with jit on at any cost in the session, stats still counts the dead job of the day (not of the hour)');
SELECT is((SELECT count(*) FROM jobq.queue_minutes(now() - interval '3 hours') WHERE queue = 'pgtap_nojit' AND dead = 1),
          1::bigint, 'and queue_minutes puts it in its minute');
SELECT is(current_setting('jit') || '/' || current_setting('work_mem'), 'on/1MB',
          'the session''s jit and work_mem are as they were after the calls');

SELECT * FROM finish();
ROLLBACK;
