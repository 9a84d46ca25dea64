-- claim_job with positions: the three arrays are all NULL, or one-dimensional with one element
-- per queue; each position is all NULL or all set; a priority fits a smallint. Anything else is
-- JOB.INVALID_ARGUMENT (JQ100) and claims nothing.
BEGIN;
SELECT plan(12);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT jobq.enqueue('t', queue => 'q');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds', ARRAY[0], NULL, ARRAY[1::bigint]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: after_priority, after_run_at and after_id must be all NULL or one-dimensional arrays of 1 elements, one per queue',
    'one NULL array of three is refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds', ARRAY[0, 0], ARRAY[now(), now()], ARRAY[1::bigint, 2]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: after_priority, after_run_at and after_id must be all NULL or one-dimensional arrays of 1 elements, one per queue',
    'more positions than queues are refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds', '{}'::int[], '{}'::timestamptz[], '{}'::bigint[]) $$,
    'JQ100', NULL, 'empty arrays for one queue are refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds', ARRAY[[0]], ARRAY[[now()]], ARRAY[[1::bigint]]) $$,
    'JQ100', NULL, 'two-dimensional arrays are refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds', ARRAY[0], ARRAY[NULL::timestamptz], ARRAY[1::bigint]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: position 1 (after_priority, after_run_at, after_id) must be all NULL or all set, with a priority in -32768..32767',
    'a partly NULL position is refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds', ARRAY[32768], ARRAY['-infinity'::timestamptz], ARRAY[1::bigint]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: position 1 (after_priority, after_run_at, after_id) must be all NULL or all set, with a priority in -32768..32767',
    'a priority outside a smallint is refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds', ARRAY[-32769], ARRAY['-infinity'::timestamptz], ARRAY[1::bigint]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: position 1 (after_priority, after_run_at, after_id) must be all NULL or all set, with a priority in -32768..32767',
    'a priority below a smallint is refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds', ARRAY[0], ARRAY[now(), now()], ARRAY[1::bigint]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: after_priority, after_run_at and after_id must be all NULL or one-dimensional arrays of 1 elements, one per queue',
    'more run_at positions than queues are refused, the other two fitting');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '30 seconds', ARRAY[0], ARRAY[now()], ARRAY[1::bigint, 2]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: after_priority, after_run_at and after_id must be all NULL or one-dimensional arrays of 1 elements, one per queue',
    'more id positions than queues are refused, the other two fitting');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['p', 'q'], 1, '30 seconds', ARRAY[0, NULL], ARRAY[now(), now()], ARRAY[1::bigint, NULL]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: position 2 (after_priority, after_run_at, after_id) must be all NULL or all set, with a priority in -32768..32767',
    'a second position with its run_at alone set is refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['p', 'q'], 1, '30 seconds', ARRAY[0, NULL], ARRAY[now(), NULL], ARRAY[1::bigint, 7]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: position 2 (after_priority, after_run_at, after_id) must be all NULL or all set, with a priority in -32768..32767',
    'a second position with its id alone set is refused');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'running'), 0::bigint, 'nothing was claimed');

SELECT * FROM finish();
ROLLBACK;
