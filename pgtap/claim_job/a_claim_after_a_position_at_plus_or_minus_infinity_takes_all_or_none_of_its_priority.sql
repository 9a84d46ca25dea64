-- claim_job and claim_passed_over with positions at the ends of time (a careless or hostile
-- caller): run_at 'infinity' passes over every job of the position's priority and still takes the
-- other priorities; '-infinity' with the smallest id passes over none. Nothing is refused.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
CREATE TEMP TABLE job (name text PRIMARY KEY, id bigint);
INSERT INTO job VALUES
    ('a', jobq.enqueue('t', queue => 'q', priority => 0)),
    ('b', jobq.enqueue('t', queue => 'q', priority => 0)),
    ('hi', jobq.enqueue('t', queue => 'q', priority => -5)),
    ('lo', jobq.enqueue('t', queue => 'q', priority => 5));
GRANT SELECT ON job TO worker_runtime;

SET LOCAL ROLE worker_runtime;
SELECT is(jobq.claim_passed_over(ARRAY['q'], ARRAY[0], ARRAY['infinity'::timestamptz], ARRAY[9223372036854775807]), true,
    'at run_at infinity every due job of the position''s priority is passed over');
SELECT results_eq(
    $$ SELECT id FROM jobq.claim_job('w', ARRAY['q'], 10, '30 seconds', ARRAY[0], ARRAY['infinity'::timestamptz], ARRAY[9223372036854775807]) ORDER BY id $$,
    $$ SELECT id FROM job WHERE name IN ('hi', 'lo') ORDER BY id $$,
    'a claim after it takes the higher and the lower priorities, none of the position''s');
SELECT is(jobq.claim_passed_over(ARRAY['q'], ARRAY[0], ARRAY['-infinity'::timestamptz], ARRAY[-9223372036854775808]), false,
    'at run_at -infinity and the smallest id nothing is passed over');
SELECT results_eq(
    $$ SELECT id FROM jobq.claim_job('w', ARRAY['q'], 10, '30 seconds', ARRAY[0], ARRAY['-infinity'::timestamptz], ARRAY[-9223372036854775808]) ORDER BY id $$,
    $$ SELECT id FROM job WHERE name IN ('a', 'b') ORDER BY id $$,
    'a claim after it takes every job of the position''s priority');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'running'), 4::bigint, 'each job was claimed once');

SELECT * FROM finish();
ROLLBACK;
