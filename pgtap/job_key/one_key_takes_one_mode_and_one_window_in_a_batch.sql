-- Within one enqueue_many a key takes one job_key_mode and one unique_for: the batch's last spec of
-- a key wins, which is defined only for one mode, and unique_for's first wins only when every spec
-- of the key has the same window. A key given two modes, or two windows, or a window on some of its
-- specs only, is refused with JQ100 JOB.INVALID_ARGUMENT naming the first such key's position, and
-- nothing of the batch is written. A mode left out counts as replace, and equal windows written
-- differently are one window. (_validate_specs compares the least and greatest value of each key.)
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-modes');

SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-modes", "job_key": "a"},
                                               {"task": "pgtap-modes", "job_key": "k", "job_key_mode": "replace"},
                                               {"task": "pgtap-modes", "job_key": "k", "job_key_mode": "preserve_run_at"}]') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job 2: job_key ''k'' appears with different job_key_modes in one batch',
    'a key given two modes in one batch is refused, naming its first position');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-modes", "job_key": "k", "job_key_mode": "unsafe_dedupe"},
                                               {"task": "pgtap-modes", "job_key": "k"}]') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job 1: job_key ''k'' appears with different job_key_modes in one batch',
    'a mode left out is replace, and differs from another mode of the key');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-modes", "job_key": "k", "unique_for": "1 hour"},
                                               {"task": "pgtap-modes", "job_key": "k", "unique_for": "2 hours"}]') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job 1: job_key ''k'' appears with different unique_for values in one batch',
    'a key given two windows is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-modes", "job_key": "x"},
                                               {"task": "pgtap-modes", "job_key": "k"},
                                               {"task": "pgtap-modes", "job_key": "k", "unique_for": "1 hour"}]') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job 2: job_key ''k'' appears with different unique_for values in one batch',
    'a window on some specs of a key only is refused');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-modes'), 0::bigint, 'no refused batch wrote a job');

SELECT is((SELECT count(*) FROM jobq.enqueue_many('[{"task": "pgtap-modes", "job_key": "k"},
                                                    {"task": "pgtap-modes", "job_key": "k", "job_key_mode": "replace"},
                                                    {"task": "pgtap-modes", "job_key": "other", "job_key_mode": "preserve_run_at"}]')),
          3::bigint, 'a mode left out and replace are one mode; another key may take another mode');
SELECT is((SELECT count(DISTINCT id) FROM jobq.enqueue_many('[{"task": "pgtap-modes", "job_key": "w", "unique_for": "1 day"},
                                                              {"task": "pgtap-modes", "job_key": "w", "unique_for": "24 hours"}]') AS e(id)),
          1::bigint, 'one window written two ways is one window: both specs get the key''s one job');

SELECT * FROM finish();
ROLLBACK;
