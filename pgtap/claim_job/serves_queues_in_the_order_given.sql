-- A later queue is served only when the earlier ones have no due job left.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('h1', 'h2', 'l1', 'l2', 'l3', 'x1');

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
