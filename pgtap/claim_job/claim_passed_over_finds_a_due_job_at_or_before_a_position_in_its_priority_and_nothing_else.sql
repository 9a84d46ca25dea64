-- jobq.claim_passed_over (the runner's probe, once per rescan interval): true exactly when a
-- claim with these positions would pass over a due, waiting job — one of the position's
-- priority at or before the position, in a queue that is not paused. Jobs of other priorities,
-- running jobs, jobs not yet due and paused queues do not count. Only worker_runtime may ask.
BEGIN;
SELECT plan(13);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT jobq.enqueue('t', queue => 'q', run_at => now() - interval '3 minutes'),
       jobq.enqueue('t', queue => 'q', run_at => now() - interval '2 minutes');
CREATE TEMP TABLE pos AS
    SELECT max(c.id) AS id, 0 AS priority, max(c.run_at) AS run_at FROM jobq.claim_job('w', ARRAY['q'], 2) AS c;
GRANT SELECT ON pos TO worker_runtime;
CREATE FUNCTION pg_temp.passed_over(p_queue text DEFAULT 'q') RETURNS boolean LANGUAGE sql AS $$
    SELECT jobq.claim_passed_over(ARRAY[p_queue], ARRAY[(SELECT priority FROM pos)], ARRAY[(SELECT run_at FROM pos)], ARRAY[(SELECT id FROM pos)])
$$;

SET LOCAL ROLE worker_runtime;
SELECT is(pg_temp.passed_over(), false, 'nothing is passed over while every job before the position is running');
RESET ROLE;
SELECT jobq.enqueue('t', queue => 'q', run_at => now() + interval '1 hour'),
       jobq.enqueue('t', queue => 'q', priority => -1, run_at => now() - interval '5 minutes'),
       jobq.enqueue('t', queue => 'q', priority => 5, run_at => now() - interval '5 minutes');
SET LOCAL ROLE worker_runtime;
SELECT is(pg_temp.passed_over(), false,
    'a job not yet due, one of a higher priority and one of a lower priority are not passed over (positioned claims take the due ones)');
RESET ROLE;
CREATE TEMP TABLE late AS SELECT jobq.enqueue('t', queue => 'q', run_at => now() - interval '150 seconds') AS id;
SET LOCAL ROLE worker_runtime;
SELECT is(pg_temp.passed_over(), true, 'a due job of the position''s priority with an earlier run_at is passed over');
SELECT is(pg_temp.passed_over('other'), false, 'positions are per queue: another queue at the same position has none');
SELECT is(jobq.claim_passed_over(ARRAY['q'], ARRAY[NULL::int], ARRAY[NULL::timestamptz], ARRAY[NULL::bigint]), false,
    'a queue without a position passes over nothing');
SELECT is(jobq.claim_passed_over(ARRAY['q'], NULL, NULL, NULL), false, 'neither do three NULL arrays');
RESET ROLE;
SELECT jobq.pause_queue('q');
SET LOCAL ROLE worker_runtime;
SELECT is(pg_temp.passed_over(), false, 'a paused queue''s jobs are not reported (no claim would take them)');
RESET ROLE;
SELECT jobq.resume_queue('q');
UPDATE jobq.jobs SET run_at = (SELECT run_at FROM pos) WHERE id = (SELECT id FROM late);
SET LOCAL ROLE worker_runtime;
SELECT is(pg_temp.passed_over(), false, 'a job with the position''s run_at and a larger id is not passed over (it sorts after)');

SELECT throws_ok($$ SELECT jobq.claim_passed_over(NULL, NULL, NULL, NULL) $$, 'JQ100', NULL, 'NULL queues are refused');
SELECT throws_ok($$ SELECT jobq.claim_passed_over(ARRAY['q', 'r'], ARRAY[0], ARRAY[now()], ARRAY[1::bigint]) $$, 'JQ100', NULL,
    'positions that are not one per queue are refused');
SELECT throws_ok($$ SELECT jobq.claim_passed_over(ARRAY[repeat('q', 201)], NULL, NULL, NULL) $$, 'JQ106', NULL,
    'a 201-character queue is refused');
RESET ROLE;
SELECT function_privs_are('jobq', 'claim_passed_over', ARRAY['text[]', 'integer[]', 'timestamp with time zone[]', 'bigint[]', 'text[]'],
    'jobq_app', ARRAY[]::text[], 'jobq_app cannot ask');
SELECT function_privs_are('jobq', 'claim_passed_over', ARRAY['text[]', 'integer[]', 'timestamp with time zone[]', 'bigint[]', 'text[]'],
    'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can ask');

SELECT * FROM finish();
ROLLBACK;
