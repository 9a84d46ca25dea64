-- A blocked job (waiting for its parents or its sequence) is live: every function that counts live
-- jobs by state counts it as blocked (jobq.stats, jobq.queue_list, jobq.queue_depth,
-- jobq.queue_states, jobq.queue_summary), never as queued, due or scheduled, whatever its run_at;
-- and a queue whose only live jobs are blocked is listed by each of them.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.jobs (task, queue, run_at, state, max_attempts) VALUES
    ('pgtap-t', 'pgtap_mix', now() - interval '10 minutes', 'queued', 3),
    ('pgtap-t', 'pgtap_mix', now() + interval '1 hour', 'queued', 3),
    ('pgtap-t', 'pgtap_mix', now() - interval '30 minutes', 'blocked', 3),
    ('pgtap-t', 'pgtap_mix', now() + interval '2 hours', 'blocked', 3),
    ('pgtap-t', 'pgtap_only_blocked', now() - interval '1 minute', 'blocked', 3);
-- A real blocked job too, through enqueue: a child of a parent that has not run.
SELECT jobq.enqueue('pgtap-t', queue => 'pgtap_mix',
                    depends_on => ARRAY[jobq.enqueue('pgtap-t', queue => 'pgtap_parent')]);

-- What each count should be, from the table itself.
CREATE TEMP TABLE want AS
SELECT * FROM (VALUES ('pgtap_mix'::text, 1::bigint, 1::bigint, 3::bigint),
                      ('pgtap_only_blocked', 0, 0, 1),
                      ('pgtap_parent', 1, 0, 0)) AS w(queue, queued, scheduled, blocked);
SELECT results_eq($$ SELECT queue, count(*) FILTER (WHERE state = 'blocked') FROM jobq.jobs GROUP BY queue ORDER BY queue $$,
                  $$ SELECT queue, blocked FROM want ORDER BY queue $$,
                  'the fixture holds the blocked jobs it means to (the enqueued child is blocked)');

SELECT results_eq($$ SELECT queue, queued, scheduled, blocked FROM jobq.stats() $$,
                  $$ SELECT * FROM want ORDER BY queue $$, 'jobq.stats counts blocked jobs apart');
SELECT results_eq($$ SELECT queue, queued, scheduled, blocked FROM jobq.queue_list() $$,
                  $$ SELECT * FROM want ORDER BY queue $$, 'jobq.queue_list counts blocked jobs apart');
SELECT results_eq($$ SELECT queue, queued, scheduled, blocked FROM jobq.queue_depth() $$,
                  $$ SELECT * FROM want ORDER BY queue $$, 'jobq.queue_depth counts blocked jobs apart');
SELECT results_eq($$ SELECT queue, queued, scheduled, blocked FROM jobq.queue_states() WHERE queue LIKE 'pgtap%' $$,
                  $$ SELECT * FROM want ORDER BY queue $$, 'jobq.queue_states counts blocked jobs apart');
SELECT results_eq($$ SELECT queue, due, scheduled, blocked FROM jobq.queue_summary() WHERE queue LIKE 'pgtap%' $$,
                  $$ SELECT * FROM want ORDER BY queue $$,
                  'jobq.queue_summary counts blocked jobs apart, neither due nor scheduled, and lists a queue of blocked jobs only');
SELECT results_eq($$ SELECT queue, blocked FROM jobq.queue_summary(2) WHERE queue = 'pgtap_mix' $$,
                  $$ VALUES ('pgtap_mix'::text, 3::bigint) $$,
                  'jobq.queue_summary stops counting blocked jobs at cap + 1, as its other counts');

SELECT * FROM finish();
ROLLBACK;
