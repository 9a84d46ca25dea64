-- requeue_dead filters by task, NULL meaning every task; an empty or spaces-only task names no
-- task, so it is refused with JOB.INVALID_ARGUMENT (JQ100) instead of quietly requeuing nothing,
-- and the dead job stays dead.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-a');
SELECT FROM jobq.enqueue('pgtap-a', queue => 'pgtap_q');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1);
SELECT FROM jobq.fail_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c), NULL, retryable => ARRAY[false]);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE jobq_operator;
SELECT throws_ok($$ SELECT jobq.requeue_dead(task => '') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: task is blank; pass NULL for every task', 'an empty task is refused');
SELECT throws_ok($$ SELECT jobq.requeue_dead(task => '   ') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: task is blank; pass NULL for every task', 'a task of spaces only is refused');
RESET ROLE;

SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'nothing was requeued or audited');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM c)), 'dead', 'the dead job is still dead');

SELECT * FROM finish();
ROLLBACK;
