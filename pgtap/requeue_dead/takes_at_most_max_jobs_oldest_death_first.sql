BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE named (name text, id bigint, age interval);
INSERT INTO named SELECT 'dead_' || d || 'h', jobq.enqueue('t', queue => 'q'), d * interval '1 hour' FROM unnest(ARRAY[5, 1, 4, 2, 3]) AS d;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 5);
SELECT is((SELECT count(*) FROM jobq.fail_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c), NULL,
                                               retryable => array_fill(false, ARRAY[5])) WHERE outcome = 'dead'),
          5::bigint, 'setup: five jobs died');
UPDATE jobq.job_history h SET finished_at = now() - n.age FROM named n WHERE n.id = h.id;

SELECT is(jobq.requeue_dead(max_jobs => 2), 2::bigint, 'requeue_dead(max_jobs => 2) queues two jobs');
SELECT set_eq($$ SELECT n.name FROM jobq.jobs j JOIN named n ON n.id = j.id $$, $$ VALUES ('dead_5h'), ('dead_4h') $$,
              'the two that died first are queued first');
SELECT is(jobq.requeue_dead(max_jobs => 2), 2::bigint, 'the next call queues the next two');
SELECT throws_ok($$ SELECT jobq.requeue_dead(max_jobs => 0) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: max_jobs 0 must be at least 1', 'requeue_dead refuses max_jobs 0 with JQ100');

SELECT * FROM finish();
ROLLBACK;
