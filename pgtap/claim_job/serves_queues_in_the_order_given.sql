-- A later queue is served only when the earlier ones have no due job left.
BEGIN;
SELECT plan(5);

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
SELECT FROM jobq.define_task('h1');
SELECT FROM jobq.define_task('h2');
SELECT FROM jobq.define_task('l1');
SELECT FROM jobq.define_task('l2');
SELECT FROM jobq.define_task('l3');
SELECT FROM jobq.define_task('x1');

SELECT lives_ok($$ SELECT jobq.enqueue_many('[
    {"task": "h1", "queue": "high"}, {"task": "h2", "queue": "high"},
    {"task": "l1", "queue": "low"},  {"task": "l2", "queue": "low"},  {"task": "l3", "queue": "low"},
    {"task": "x1", "queue": "unlisted", "priority": -100}]') $$, 'setup: jobs in three queues');

CREATE TEMP TABLE first AS SELECT * FROM jobq.claim_job('w', ARRAY['low', 'high'], 1);
SELECT is((SELECT task FROM first), 'l1', 'the first queue listed is served first, whatever the other queues hold');

CREATE TEMP TABLE batch AS SELECT * FROM jobq.claim_job('w', ARRAY['high', 'low'], 3);
SELECT bag_eq($$ SELECT task FROM batch $$, $$ VALUES ('h1'), ('h2'), ('l2') $$,
              'claim_job empties the first queue, then fills the rest of max_jobs from the next');

CREATE TEMP TABLE rest AS SELECT * FROM jobq.claim_job('w', ARRAY['high', 'low'], 10);
SELECT bag_eq($$ SELECT task FROM rest $$, $$ VALUES ('l3') $$, 'claim_job never takes a job from a queue it was not given');
SELECT is((SELECT state FROM jobq.jobs WHERE task = 'x1'), 'queued', 'the job of the unlisted queue stays queued');

SELECT * FROM finish();
ROLLBACK;
