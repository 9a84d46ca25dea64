-- jobq.pause_queue: from the commit on every claim skips the queue (no runner restart): its jobs
-- wait, enqueue still works, the queues after it in the claim's list are served. jobq.resume_queue
-- makes them claimable at once. Both are idempotent and audited only when the state changes.
BEGIN;
SELECT plan(14);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.enqueue('pgtap-t', '{}', queue => 'pgtap_a');

SELECT is(jobq.pause_queue('pgtap_a'), true, 'pause_queue of a running queue returns true');
SELECT is(jobq.pause_queue('pgtap_a'), false, 'pausing it again returns false');
SELECT results_eq($$ SELECT paused, paused_by FROM jobq.queues WHERE name = 'pgtap_a' $$,
                  $$ VALUES (true, session_user::text COLLATE "default") $$, 'jobq.queues records the pause and who made it');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-t', '{}', queue => 'pgtap_a') $$, 'enqueue into a paused queue still works');
SELECT FROM jobq.enqueue('pgtap-t', '{}', queue => 'pgtap_b');
SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_a']) $$, 'claim_job returns no job of the paused queue');
SELECT results_eq($$ SELECT queue FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_a', 'pgtap_b'], 10) $$,
                  $$ VALUES ('pgtap_b'::text) $$, 'a claim of several queues skips the paused one and serves the next');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE queue = 'pgtap_a' AND state = 'queued'), 2::bigint, 'the paused queue''s jobs wait, queued');

SELECT is(jobq.resume_queue('pgtap_a'), true, 'resume_queue of a paused queue returns true');
SELECT is(jobq.resume_queue('pgtap_a'), false, 'resuming it again returns false');
SELECT is(jobq.resume_queue('pgtap_never_paused'), false, 'resuming a queue never paused returns false and changes nothing');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_a'], 10)), 2::bigint, 'its jobs are claimable at once after the resume');
SELECT results_eq($$ SELECT paused, paused_at, paused_by FROM jobq.queues WHERE name = 'pgtap_a' $$,
                  $$ VALUES (false, NULL::timestamptz, NULL::text) $$, 'jobq.queues shows it running');
SELECT results_eq($$ SELECT action, actor, detail ->> 'queue' FROM jobq.audit_log ORDER BY id $$,
                  $$ VALUES ('pause_queue'::text, session_user::text COLLATE "default", 'pgtap_a'::text), ('resume_queue', session_user, 'pgtap_a') $$,
                  'one audit row per change, actor session_user; the no-op calls wrote none');
SELECT is((SELECT count(*) FROM jobq.queues WHERE name = 'pgtap_never_paused'), 0::bigint, 'a no-op resume creates no row');

SELECT * FROM finish();
ROLLBACK;
