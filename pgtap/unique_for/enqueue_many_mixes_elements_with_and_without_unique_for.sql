-- enqueue_many takes unique_for per element ("unique_for": "1 hour"): in one batch, an element
-- with it returns the job of its key within the window, one without it merges or inserts as
-- before, and keyless elements are inserted; ids come back in input order. Several elements of one
-- key with the same unique_for: the first is enqueued and the others get its id (as one after the
-- other would); one key with different unique_for values in a batch is refused.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE done AS SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:done') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['q']);
SELECT FROM jobq.complete_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed));
CREATE TEMP TABLE waiting AS SELECT jobq.enqueue('t', '{"v": 0}', queue => 'q', job_key => 'pgtap:waiting') AS id;

CREATE TEMP TABLE batch AS
SELECT e.ord, e.id
FROM jobq.enqueue_many($$[
    {"task": "t", "queue": "q", "job_key": "pgtap:done", "unique_for": "1 hour"},
    {"task": "t", "queue": "q", "payload": {"v": 1}},
    {"task": "t", "queue": "q", "job_key": "pgtap:waiting", "payload": {"v": 2}},
    {"task": "t", "queue": "q", "job_key": "pgtap:new", "payload": {"first": true}, "unique_for": "1 hour"},
    {"task": "t", "queue": "q", "job_key": "pgtap:new", "payload": {"first": false}, "unique_for": "1 hour"},
    {"task": "t", "queue": "q", "job_key": "pgtap:done2", "unique_for": "1 hour"}
]$$) WITH ORDINALITY AS e(id, ord);

SELECT is((SELECT id FROM batch WHERE ord = 1), (SELECT id FROM done), 'element 1 (unique_for) gets the finished job of its key');
SELECT results_eq($$ SELECT job_key, payload FROM jobq.jobs WHERE id = (SELECT id FROM batch WHERE ord = 2) $$,
                  $$ VALUES (NULL::text, '{"v": 1}'::jsonb) $$, 'element 2 (keyless) is a new job');
SELECT results_eq($$ SELECT id, payload FROM jobq.jobs WHERE id = (SELECT id FROM batch WHERE ord = 3) $$,
                  $$ VALUES ((SELECT id FROM waiting), '{"v": 2}'::jsonb) $$, 'element 3 (no unique_for) merges into the waiting job under replace');
SELECT is((SELECT id FROM batch WHERE ord = 5), (SELECT id FROM batch WHERE ord = 4), 'elements 4 and 5, one key with unique_for: one job');
SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT id FROM batch WHERE ord = 4)), '{"first": true}'::jsonb,
          'the first of them is the one enqueued');
SELECT is((SELECT count(*) FROM jobq.jobs), 4::bigint, 'live jobs: waiting, the keyless one, pgtap:new, pgtap:done2');

SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t", "job_key": "k", "unique_for": "1 hour"}, {"task": "t", "job_key": "k"}]') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job 1: job_key ''k'' appears with different unique_for values in one batch',
    'one key with and without unique_for in one batch is refused');

SELECT * FROM finish();
ROLLBACK;
