-- A claim of 1000 (what a runner claiming ahead asks for) after the table's statistics were taken
-- while every job waited: it takes exactly the first 1000 due jobs in claim order, each once,
-- each with its own fresh lease, and leaves every other job as it was. The claim finds the rows it
-- locked again by primary key (jobq._claim), not through a join the planner chooses.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT count(jobq.enqueue('t', queue => 'q', priority => (g % 3)::smallint, run_at => now() - g * interval '1 second'))
FROM generate_series(1, 1500) AS g;
SELECT count(jobq.enqueue('t', queue => 'q', run_at => now() + interval '1 hour')) FROM generate_series(1, 10);
ANALYZE jobq.jobs;

CREATE TEMP TABLE expected AS
SELECT j.id FROM jobq.jobs j
WHERE j.queue = 'q' AND j.run_at <= now()
ORDER BY j.priority, j.run_at, j.id
LIMIT 1000;
CREATE TEMP TABLE before AS SELECT * FROM jobq.jobs;

CREATE TEMP TABLE got AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1000);

SELECT is((SELECT count(*) FROM got), 1000::bigint, 'the claim returns 1000 jobs');
SELECT set_eq($$ SELECT id FROM got $$, $$ SELECT id FROM expected $$,
              'they are the first 1000 due jobs in (priority, run_at, id) order');
SELECT is((SELECT count(DISTINCT lease_token) FROM got WHERE attempt = 1 AND locked_by = 'w'), 1000::bigint,
          'each has its own lease token, attempt 1, worker w');
SELECT set_eq($$ SELECT id FROM jobq.jobs WHERE state = 'running' $$, $$ SELECT id FROM expected $$,
              'exactly those jobs are running');
SELECT is((SELECT count(*) FROM jobq.jobs j JOIN before b USING (id)
           WHERE j.id NOT IN (SELECT id FROM expected) AND (j.*)::text = (b.*)::text), 510::bigint,
          'the 510 other jobs are unchanged');

SELECT * FROM finish();
ROLLBACK;
