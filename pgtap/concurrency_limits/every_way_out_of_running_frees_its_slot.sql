-- The limit is a count of running rows, not a counter: every way a job leaves running frees its
-- slot by itself. With max_running 1, each exit below is followed by a claim that takes one job,
-- and preceded by one that takes none: complete, fail (retried and dead), snooze, cancel, delete,
-- hand back, the sweep of an expired lease, and the sweep of a detached worker's job.
BEGIN;
SELECT plan(20);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') FROM generate_series(1, 20);
SELECT FROM jobq.register_worker('pgtap-w', 'node', 1, ARRAY['pgtap_q'], 1);
SELECT jobq.set_concurrency_limit('pgtap_q', 1);

CREATE TEMP TABLE held (id bigint, token uuid);
INSERT INTO held SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5);
SELECT is((SELECT count(*) FROM held), 1::bigint, 'the first claim takes one job');

SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5) $$, 'full before complete_job');
SELECT jobq.complete_job(id, token) FROM held;
TRUNCATE held; INSERT INTO held SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5);
SELECT is((SELECT count(*) FROM held), 1::bigint, 'complete_job frees the slot');

SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5) $$, 'full before fail_job (retried)');
SELECT jobq.fail_job(id, token, 'boom') FROM held;
TRUNCATE held; INSERT INTO held SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5);
SELECT is((SELECT count(*) FROM held), 1::bigint, 'fail_job with attempts left (retry_pending) frees the slot');

SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5) $$, 'full before fail_job (dead)');
SELECT jobq.fail_job(id, token, 'boom', retryable => false) FROM held;
TRUNCATE held; INSERT INTO held SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5);
SELECT is((SELECT count(*) FROM held), 1::bigint, 'fail_job that kills the job frees the slot');

SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5) $$, 'full before snooze');
SELECT jobq.snooze(id, token, '1 hour') FROM held;
TRUNCATE held; INSERT INTO held SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5);
SELECT is((SELECT count(*) FROM held), 1::bigint, 'snooze frees the slot');

SELECT jobq.cancel_job(id) FROM held;
TRUNCATE held; INSERT INTO held SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5);
SELECT is((SELECT count(*) FROM held), 1::bigint, 'cancel_job frees the slot');

SELECT jobq.delete_job(id) FROM held;
TRUNCATE held; INSERT INTO held SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5);
SELECT is((SELECT count(*) FROM held), 1::bigint, 'delete_job frees the slot');

SELECT is((SELECT count(*) FROM jobq.hand_back_unheld('pgtap-w', '{}')), 1::bigint, 'hand_back_unheld hands the job back');
TRUNCATE held; INSERT INTO held SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5);
SELECT is((SELECT count(*) FROM held), 1::bigint, 'hand_back_unheld frees the slot');

SELECT is((SELECT count(*) FROM jobq._rescue(100, now() + interval '1 hour')), 1::bigint, 'the sweep takes the expired lease');
TRUNCATE held; INSERT INTO held SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 5);
SELECT is((SELECT count(*) FROM held), 1::bigint, 'the sweep of an expired lease frees the slot');

SELECT is(jobq.detach_worker('pgtap-w'), 1, 'the worker is detached: its job is CONFIRMING, still running');
SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-other', ARRAY['pgtap_q'], 5) $$, 'a CONFIRMING job holds its slot');
SELECT is((SELECT reason FROM jobq._rescue(100, now() + interval '1 minute')), 'detached', 'past the deadline the sweep fails it as detached');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-other', ARRAY['pgtap_q'], 5)), 1::bigint, 'the sweep of a detached worker''s job frees the slot');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE queue = 'pgtap_q' AND state = 'running'), 1::bigint, 'never more than one ran');

SELECT * FROM finish();
ROLLBACK;
