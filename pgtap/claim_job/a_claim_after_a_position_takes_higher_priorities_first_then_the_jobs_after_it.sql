-- claim_job with positions (the runner's claims between two from the head): in each queue it
-- takes the jobs of a higher priority than the position's first, then those after the position
-- in (priority, run_at, id) order, the lower priorities included; max_jobs counts across both.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
CREATE TEMP TABLE job (name text PRIMARY KEY, id bigint);
INSERT INTO job VALUES
    ('a', jobq.enqueue('t', queue => 'q', priority => 0, run_at => now() - interval '3 minutes')),
    ('b', jobq.enqueue('t', queue => 'q', priority => 0, run_at => now() - interval '2 minutes')),
    ('c', jobq.enqueue('t', queue => 'q', priority => 0, run_at => now() - interval '1 minute')),
    ('d', jobq.enqueue('t', queue => 'q', priority => 5, run_at => now() - interval '3 minutes')),
    ('e', jobq.enqueue('t', queue => 'q', priority => -1, run_at => now() - interval '5 minutes'));
CREATE TEMP TABLE pos AS
    SELECT j.priority::integer AS priority, j.run_at, j.id FROM jobq.jobs j WHERE j.id = (SELECT id FROM job WHERE name = 'b');

GRANT SELECT ON job, pos TO worker_runtime;
SET LOCAL ROLE worker_runtime;
SELECT results_eq(
    $$ SELECT id FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds',
                                     (SELECT ARRAY[priority] FROM pos), (SELECT ARRAY[run_at] FROM pos), (SELECT ARRAY[id] FROM pos)) $$,
    $$ SELECT id FROM job WHERE name = 'e' $$,
    'a job of a higher priority than the position''s is claimed first, though it sorts before the position');
SELECT results_eq(
    $$ SELECT id FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds',
                                     (SELECT ARRAY[priority] FROM pos), (SELECT ARRAY[run_at] FROM pos), (SELECT ARRAY[id] FROM pos)) $$,
    $$ SELECT id FROM job WHERE name = 'c' $$,
    'then the next job after the position in its priority');
SELECT results_eq(
    $$ SELECT id FROM jobq.claim_job('w', ARRAY['q'], 10, '30 seconds',
                                     (SELECT ARRAY[priority] FROM pos), (SELECT ARRAY[run_at] FROM pos), (SELECT ARRAY[id] FROM pos)) $$,
    $$ SELECT id FROM job WHERE name = 'd' $$,
    'then the jobs of lower priorities');
RESET ROLE;
SELECT results_eq(
    $$ SELECT j.name FROM job j JOIN jobq.jobs l ON l.id = j.id WHERE l.state = 'queued' ORDER BY j.name $$,
    $$ VALUES ('a'), ('b') $$,
    'the jobs at and before the position stay queued');
SELECT results_eq(
    $$ SELECT id FROM jobq.claim_job('w', ARRAY['q'], 10, '30 seconds', NULL, NULL, NULL) ORDER BY id $$,
    $$ SELECT id FROM job WHERE name IN ('a', 'b') ORDER BY id $$,
    'three NULL arrays claim from the head of the queue, and take them');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'running'), 5::bigint, 'every job was claimed once');

SELECT * FROM finish();
ROLLBACK;
