-- A claim given the tasks its worker serves takes no job of another task, whatever the queue's
-- kind: a plain queue from its head and after a position, a queue with a concurrency limit (its
-- shared claim and its claim under the lock alone), a fair queue, and a fair queue with a store
-- limit. The jobs of other tasks stay queued, use no attempt, and are taken by a claim that names
-- their task (or names none: NULL is every task, as before). claim_passed_over reports only jobs
-- of the tasks it is given. A list the claim cannot take (empty, a NULL, above 1000 names) is
-- refused with the catalogued error and claims nothing; a name of no declared task matches no job.
BEGIN;
SELECT plan(17);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-mine', 'pgtap-theirs');
-- Each queue: the other task's jobs first in claim order (a higher priority), then this task's.
SELECT jobq.enqueue('pgtap-theirs', queue => q, priority => -1) FROM unnest(ARRAY['pgtap_plain', 'pgtap_lim', 'pgtap_lim_big', 'pgtap_fair', 'pgtap_fair_lim']) AS q, generate_series(1, 5);
SELECT jobq.enqueue('pgtap-mine', queue => q) FROM unnest(ARRAY['pgtap_plain', 'pgtap_lim', 'pgtap_lim_big', 'pgtap_fair', 'pgtap_fair_lim']) AS q, generate_series(1, 5);
SELECT jobq.set_concurrency_limit('pgtap_lim', 1000);          -- far below: shared claims
SELECT jobq.set_concurrency_limit('pgtap_lim_big', 100);       -- too low to share: the lock alone
SELECT jobq.set_fair_claiming(q, true) FROM unnest(ARRAY['pgtap_fair', 'pgtap_fair_lim']) AS q;
SELECT jobq.set_store_concurrency_limit('pgtap_fair_lim', 3);

SET LOCAL ROLE worker_runtime;
SELECT is((SELECT array_agg(DISTINCT task) FROM jobq.claim_job('pgtap-w', ARRAY[q], 10, tasks => ARRAY['pgtap-mine'])),
          ARRAY['pgtap-mine'], format('queue %s yields only the tasks named', q))
FROM unnest(ARRAY['pgtap_plain', 'pgtap_lim', 'pgtap_lim_big', 'pgtap_fair']) AS q;
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_fair_lim'], 10, tasks => ARRAY['pgtap-mine'])), 3::bigint,
          'a fair queue with a store limit of 3 yields 3 jobs of the task named');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-theirs' AND (state <> 'queued' OR attempt <> 0)), 0::bigint,
          'every job of the other task is still queued and used no attempt');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-mine' AND state = 'running'), 23::bigint,
          '23 jobs of the task named run (5 from each of four queues, 3 from the store-limited one)');

SET LOCAL ROLE worker_runtime;
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_plain'], 10, tasks => ARRAY['pgtap-mine'])), 0::bigint,
          'with none of its tasks left, the plain queue yields nothing to it');
SELECT is((SELECT array_agg(DISTINCT task) FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_plain'], 10, tasks => ARRAY['pgtap-theirs', 'pgtap-absent'])),
          ARRAY['pgtap-theirs'], 'a claim naming the other task takes its jobs');
RESET ROLE;

-- After a position: the other task's job sorts first in the position's priority, and is not taken.
SELECT jobq.enqueue('pgtap-theirs', queue => 'pgtap_pos') FROM generate_series(1, 3);
SELECT jobq.enqueue('pgtap-mine', queue => 'pgtap_pos') FROM generate_series(1, 3);
SET LOCAL ROLE worker_runtime;
SELECT is((SELECT array_agg(task ORDER BY id) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_pos'], 10, '30 seconds',
                                                                  ARRAY[-1], ARRAY[now()], ARRAY[0::bigint], ARRAY['pgtap-mine'])),
          ARRAY['pgtap-mine', 'pgtap-mine', 'pgtap-mine'], 'after a position, only the tasks named are taken');
SELECT is(jobq.claim_passed_over(ARRAY['pgtap_pos'], ARRAY[0], ARRAY['infinity'::timestamptz], ARRAY[9223372036854775807], ARRAY['pgtap-mine']),
          false, 'claim_passed_over reports no job of a task it is not given');
SELECT is(jobq.claim_passed_over(ARRAY['pgtap_pos'], ARRAY[0], ARRAY['infinity'::timestamptz], ARRAY[9223372036854775807], ARRAY['pgtap-theirs']),
          true, 'and reports one of a task it is given');

SELECT throws_ok($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_pos'], 1, tasks => ARRAY[]::text[]) $$, 'JQ100', NULL,
                 'an empty list of tasks is refused (NULL is every task)');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_pos'], 1, tasks => ARRAY['pgtap-mine', NULL]) $$, 'JQ100', NULL,
                 'so is a list with a NULL');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_pos'], 1, tasks => ARRAY[repeat('t', 101), 'pgtap-none'])), 0::bigint,
          'names of no declared task (one above 100 characters included) match no job');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_pos'], 1, tasks => ARRAY(SELECT 't' || g FROM generate_series(1, 1001) g)) $$,
                 'JQ107', NULL, 'and more than 1000 tasks');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE queue = 'pgtap_pos' AND state = 'queued'), 3::bigint,
          'the refused claims took nothing');

SELECT * FROM finish();
ROLLBACK;
