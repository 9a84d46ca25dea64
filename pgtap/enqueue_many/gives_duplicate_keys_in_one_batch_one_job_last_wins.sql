BEGIN;
SELECT plan(4);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;
-- The tasks this file enqueues: every enqueue needs a declared task (jobq.define_task is
-- idempotent and puts back a task whose declaration differs).
SELECT FROM jobq.define_task('refresh');
SELECT FROM jobq.define_task('other');

CREATE TEMP TABLE ids AS
SELECT row_number() OVER () AS pos, id
FROM jobq.enqueue_many($$[
    {"task": "refresh", "job_key": "pgtap:refresh:1", "payload": {"v": 1}},
    {"task": "other"},
    {"task": "refresh", "job_key": "pgtap:refresh:1", "payload": {"v": 2}}
]$$) AS id;

SELECT is((SELECT id FROM ids WHERE pos = 1), (SELECT id FROM ids WHERE pos = 3),
          'both positions of a duplicated key get the same id');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:refresh:1'), 1::bigint,
          'a key duplicated within one batch creates one job');
SELECT is((SELECT payload FROM jobq.jobs WHERE job_key = 'pgtap:refresh:1'), '{"v": 2}'::jsonb,
          'the last element of a duplicated key wins');
SELECT isnt((SELECT id FROM ids WHERE pos = 2), (SELECT id FROM ids WHERE pos = 1),
            'the keyless element in between gets its own job');

SELECT * FROM finish();
ROLLBACK;
