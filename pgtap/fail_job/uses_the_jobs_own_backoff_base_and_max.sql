BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', backoff_base => '1 minute', backoff_max => '90 seconds') AS id;

CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c1), (SELECT lease_token FROM c1), 'x'), 'retry_pending', 'attempt 1 fails');
SELECT ok((SELECT run_at BETWEEN now() + interval '30 seconds' AND now() + interval '60 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          'the job''s own backoff_base (1 minute) replaces the setting (2 seconds): retry within [30 s, 60 s]');

CREATE TEMP TABLE c2 AS SELECT * FROM jobq._claim('w', ARRAY['q'], 1, '30 seconds', now() + interval '1 hour');
SELECT is(jobq.fail_job((SELECT id FROM c2), (SELECT lease_token FROM c2), 'x'), 'retry_pending', 'attempt 2 fails');
SELECT ok((SELECT run_at BETWEEN now() + interval '45 seconds' AND now() + interval '90 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          'the job''s own backoff_max (90 s) caps 2 minutes: retry within [45 s, 90 s]');

SELECT * FROM finish();
ROLLBACK;
