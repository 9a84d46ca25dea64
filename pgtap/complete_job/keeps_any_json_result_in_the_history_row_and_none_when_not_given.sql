-- complete_job and complete_jobs keep the result a handler gives in the job's history row: any JSON
-- value (an object, an array, a string, a number, a boolean, JSON null), and SQL NULL when none is
-- given (the two-argument calls of the previous release still resolve).
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE given (n integer, result jsonb);
INSERT INTO given VALUES (1, '{"total": 42, "items": [1, 2]}'), (2, '[1, "two", null]'), (3, '"done"'), (4, '3.5'),
                         (5, 'false'), (6, 'null'), (7, NULL);
CREATE TEMP TABLE job AS SELECT g.n, jobq.enqueue('t', jsonb_build_object('n', g.n), queue => 'q') AS id FROM given g;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 10);

-- Job 1 through complete_job, jobs 2 to 7 in one complete_jobs call, job 7 without a result.
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L, %L::jsonb)', c.id, c.lease_token, g.result),
                'complete_job takes a result')
FROM c JOIN job j ON j.id = c.id JOIN given g ON g.n = j.n WHERE g.n = 1;
SELECT results_eq(
    $$ SELECT outcome FROM jobq.complete_jobs(
           (SELECT array_agg(c.id ORDER BY c.id) FROM c JOIN job j ON j.id = c.id WHERE j.n BETWEEN 2 AND 6),
           (SELECT array_agg(c.lease_token ORDER BY c.id) FROM c JOIN job j ON j.id = c.id WHERE j.n BETWEEN 2 AND 6),
           results => (SELECT array_agg(g.result ORDER BY c.id) FROM c JOIN job j ON j.id = c.id JOIN given g ON g.n = j.n WHERE j.n BETWEEN 2 AND 6)) $$,
    $$ VALUES ('succeeded'), ('succeeded'), ('succeeded'), ('succeeded'), ('succeeded') $$,
    'complete_jobs takes one result per lease');
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', c.id, c.lease_token), 'complete_job of two arguments still resolves')
FROM c JOIN job j ON j.id = c.id WHERE j.n = 7;

SELECT results_eq(
    $$ SELECT j.n, h.state, h.result IS NULL, h.result::text FROM job j JOIN jobq.job_history h ON h.id = j.id ORDER BY j.n $$,
    $$ VALUES (1, 'succeeded', false, '{"items": [1, 2], "total": 42}'), (2, 'succeeded', false, '[1, "two", null]'),
              (3, 'succeeded', false, '"done"'), (4, 'succeeded', false, '3.5'), (5, 'succeeded', false, 'false'),
              (6, 'succeeded', false, 'null'), (7, 'succeeded', true, NULL) $$,
    'each history row keeps its result as given: any JSON value, JSON null as JSON null, SQL NULL when none was given');

SELECT * FROM finish();
ROLLBACK;
