-- unique_for covers finished jobs: the job of the key in jobq.job_history (succeeded, dead or
-- canceled) whose created_at is within the window is returned and nothing is written; when several
-- finished jobs held the key, the newest one.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

-- succeeded
CREATE TEMP TABLE done AS SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:done') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['q']);
SELECT FROM jobq.complete_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed));
-- dead
CREATE TEMP TABLE dead AS SELECT jobq.enqueue('t', queue => 'd', job_key => 'pgtap:dead', max_attempts => 1) AS id;
CREATE TEMP TABLE claimed_dead AS SELECT * FROM jobq.claim_job('w1', ARRAY['d']);
SELECT FROM jobq.fail_job((SELECT id FROM claimed_dead), (SELECT lease_token FROM claimed_dead), 'boom');
-- canceled
CREATE TEMP TABLE canceled AS SELECT jobq.enqueue('t', queue => 'c', job_key => 'pgtap:canceled') AS id;
SELECT FROM jobq.cancel_job((SELECT id FROM canceled));

SELECT results_eq($$ SELECT id, state FROM jobq.job_history ORDER BY id $$,
                  $$ VALUES ((SELECT id FROM done), 'succeeded'::text), ((SELECT id FROM dead), 'dead'), ((SELECT id FROM canceled), 'canceled') $$,
                  'three keyed jobs finished: succeeded, dead, canceled');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT is(jobq.enqueue('t', queue => 'q', job_key => 'pgtap:done', unique_for => '1 hour'), (SELECT id FROM done),
          'the succeeded job is returned');
SELECT is(jobq.enqueue('t', queue => 'd', job_key => 'pgtap:dead', unique_for => '1 hour'), (SELECT id FROM dead),
          'the dead job is returned');
SELECT is(jobq.enqueue('t', queue => 'c', job_key => 'pgtap:canceled', unique_for => '1 hour'), (SELECT id FROM canceled),
          'the canceled job is returned');
SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'nothing was written');

-- Two finished jobs of one key, both within the window: the newest is returned.
INSERT INTO jobq.job_history (id, task, queue, payload, priority, run_at, state, attempt, max_attempts, job_key, job_key_mode,
                              created_at, updated_at, finished_at)
VALUES (900001, 't', 'q', '{}', 0, now(), 'succeeded', 1, 5, 'pgtap:two', 'replace', now() - interval '40 minutes', now(), now()),
       (900002, 't', 'q', '{}', 0, now(), 'succeeded', 1, 5, 'pgtap:two', 'replace', now() - interval '20 minutes', now(), now());
SELECT is(jobq.enqueue('t', queue => 'q', job_key => 'pgtap:two', unique_for => '1 hour'), 900002::bigint,
          'of two finished jobs within the window, the newest');
SELECT is(jobq.enqueue('t', queue => 'q', job_key => 'pgtap:two', unique_for => '30 minutes'), 900002::bigint,
          'and within 30 minutes, the one of 20 minutes ago');

SELECT * FROM finish();
ROLLBACK;
