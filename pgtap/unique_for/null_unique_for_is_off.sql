-- unique_for NULL (the default) is off: a key behaves as it always did. A finished job of the key
-- within any window does not stop a new job, and a waiting one is merged under replace.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE done AS SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:k') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['q']);
SELECT FROM jobq.complete_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed));

CREATE TEMP TABLE again AS SELECT jobq.enqueue('t', '{"v": 1}', queue => 'q', job_key => 'pgtap:k', unique_for => NULL) AS id;
SELECT isnt((SELECT id FROM again), (SELECT id FROM done), 'a finished job of the key does not stop a new one');
SELECT is(jobq.enqueue('t', '{"v": 2}', queue => 'q', job_key => 'pgtap:k'), (SELECT id FROM again),
          'without unique_for, replace merges into the waiting job');
SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT id FROM again)), '{"v": 2}'::jsonb, 'and rewrites it');
SELECT is((SELECT e FROM jobq.enqueue_many('[{"task": "t", "queue": "q", "job_key": "pgtap:k", "payload": {"v": 3}, "unique_for": null}]') AS e),
          (SELECT id FROM again), 'enqueue_many with "unique_for": null merges the same way');

SELECT * FROM finish();
ROLLBACK;
