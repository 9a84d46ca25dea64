BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('a', 'b');

-- Four dead jobs: tasks a and b, dead 3 days and 1 hour ago; one canceled job of task a.
CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named VALUES
    ('a_old', jobq.enqueue('a', queue => 'q')), ('a_new', jobq.enqueue('a', queue => 'q')),
    ('b_old', jobq.enqueue('b', queue => 'q')), ('b_new', jobq.enqueue('b', queue => 'q')),
    ('a_canceled', jobq.enqueue('a', queue => 'q2'));
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 4);
SELECT is((SELECT count(*) FROM jobq.fail_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c), NULL,
                                               retryable => array_fill(false, ARRAY[4])) WHERE outcome = 'dead'),
          4::bigint, 'setup: four jobs died');
SELECT is(jobq.cancel_job((SELECT id FROM named WHERE name = 'a_canceled')), 'canceled', 'setup: one job of task a was canceled');
UPDATE jobq.job_history h SET finished_at = now() - CASE WHEN n.name LIKE '%_old' THEN interval '3 days' ELSE interval '1 hour' END
FROM named n WHERE n.id = h.id;

SELECT is(jobq.requeue_dead(task => 'a', finished_after => now() - interval '1 day'), 1::bigint,
          'requeue_dead with task and finished_after queues only the dead jobs matching both');
SELECT set_eq($$ SELECT n.name FROM jobq.jobs j JOIN named n ON n.id = j.id $$, $$ VALUES ('a_new') $$,
              'the recent dead job of task a is back in jobq.jobs');
SELECT is(jobq.requeue_dead(task => 'a'), 1::bigint, 'requeue_dead with task only queues the other dead job of task a, not the canceled one');
SELECT is(jobq.requeue_dead(), 2::bigint, 'requeue_dead without filters queues the remaining dead jobs (task b)');

SELECT * FROM finish();
ROLLBACK;
