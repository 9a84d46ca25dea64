-- Outside the window unique_for changes nothing: a finished job of the key enqueued before the
-- window leaves room for a new job, and a live one older than the window is handled by the key's
-- mode as without unique_for (replace merges into it; a running one gives its key up).
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE old AS SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:old') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['q']);
SELECT FROM jobq.complete_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed));
UPDATE jobq.job_history SET created_at = now() - interval '2 hours' WHERE id = (SELECT id FROM old);

CREATE TEMP TABLE new AS SELECT jobq.enqueue('t', '{"v": 2}', queue => 'q', job_key => 'pgtap:old', unique_for => '1 hour') AS id;
SELECT isnt((SELECT id FROM new), (SELECT id FROM old), 'a finished job enqueued 2 hours ago is outside 1 hour: a new job');
SELECT results_eq($$ SELECT job_key, state, payload FROM jobq.jobs WHERE id = (SELECT id FROM new) $$,
                  $$ VALUES ('pgtap:old'::text, 'queued'::text, '{"v": 2}'::jsonb) $$, 'the new job holds the key');
SELECT is(jobq.enqueue('t', queue => 'q', job_key => 'pgtap:old', unique_for => '3 hours'), (SELECT id FROM new),
          'a wider window finds the newest job of the key, the live one');

-- A live waiting job enqueued 2 hours ago: replace merges into it, as without unique_for.
UPDATE jobq.jobs SET created_at = now() - interval '2 hours' WHERE id = (SELECT id FROM new);
SELECT is(jobq.enqueue('t', '{"v": 3}', queue => 'q', job_key => 'pgtap:old', unique_for => '1 hour'), (SELECT id FROM new),
          'a waiting job older than the window takes the merge of replace');
SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT id FROM new)), '{"v": 3}'::jsonb, 'replace rewrote its payload');

-- A running job enqueued 2 hours ago gives its key up to a new job, as without unique_for.
CREATE TEMP TABLE running AS SELECT * FROM jobq.claim_job('w1', ARRAY['q']);
CREATE TEMP TABLE third AS SELECT jobq.enqueue('t', '{"v": 4}', queue => 'q', job_key => 'pgtap:old', unique_for => '1 hour') AS id;
SELECT isnt((SELECT id FROM third), (SELECT id FROM running), 'a running job older than the window: a new job');
SELECT is((SELECT job_key FROM jobq.jobs WHERE id = (SELECT id FROM running)), NULL, 'the running job gave its key up');

SELECT * FROM finish();
ROLLBACK;
