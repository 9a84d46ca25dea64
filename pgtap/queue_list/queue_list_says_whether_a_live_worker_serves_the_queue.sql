-- served in jobq.queue_list() is true only while a live worker (active, heard from within
-- worker_timeout, serving some task) takes the queue: a queue no worker serves, or whose worker
-- drained or went silent, is not served, so the dashboard does not show it as running.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.jobs (task, queue, max_attempts) VALUES ('pgtap-t', 'pgtap_a', 3), ('pgtap-t', 'pgtap_b', 3);
SELECT FROM jobq.register_worker('w-pgtap', 'node', 1, ARRAY['pgtap_a'], 1, 'v', NULL);

SELECT results_eq($$ SELECT queue, served FROM jobq.queue_list() $$,
    $$ VALUES ('pgtap_a'::text, true), ('pgtap_b', false) $$, 'a queue with a live worker is served, one without is not');
SELECT jobq.drain_worker('w-pgtap');
SELECT is((SELECT served FROM jobq.queue_list('pgtap_a')), false, 'a draining worker serves nothing');
SELECT jobq.resume_worker('w-pgtap');
SELECT is((SELECT served FROM jobq.queue_list('pgtap_a')), true, 'resumed, it serves again');
UPDATE jobq.workers SET heartbeat_at = now() - interval '1 day';
SELECT is((SELECT served FROM jobq.queue_list('pgtap_a')), false, 'a worker silent past worker_timeout serves nothing');

SELECT * FROM finish();
ROLLBACK;
