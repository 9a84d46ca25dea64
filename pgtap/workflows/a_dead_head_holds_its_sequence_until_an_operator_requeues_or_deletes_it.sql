-- A sequence's job that dies with on_sequence_failure hold (the default) holds the sequence: the
-- next job stays blocked (jobq.sequence_holds, explain_job names the dead job) until an operator
-- requeues the dead job (it runs first, then the next) or deletes it (the next goes). With
-- continue the next job goes at once.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-wf');
CREATE TEMP TABLE ids (name text PRIMARY KEY, id bigint);
INSERT INTO ids VALUES ('h1', jobq.enqueue('pgtap-wf', sequence_key => 'held', max_attempts => 1));
INSERT INTO ids VALUES ('h2', jobq.enqueue('pgtap-wf', sequence_key => 'held'));
INSERT INTO ids VALUES ('c1', jobq.enqueue('pgtap-wf', sequence_key => 'cont', max_attempts => 1, on_sequence_failure => 'continue'));
INSERT INTO ids VALUES ('c2', jobq.enqueue('pgtap-wf', sequence_key => 'cont'));

CREATE TEMP TABLE l1 AS SELECT * FROM jobq.claim_job('w', ARRAY['default'], 10);
SELECT is((SELECT count(*) FROM l1), 2::bigint, 'both heads run');
SELECT jobq.fail_jobs(array_agg(id), array_agg(lease_token), array_agg('boom'::text)) FROM l1;
SELECT is((SELECT count(*) FROM jobq.job_history WHERE state = 'dead'), 2::bigint, 'both die');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'c2')), 'queued', 'continue: the next goes');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'h2')), 'blocked', 'hold: the next waits');
SELECT results_eq(format('SELECT rule, detail FROM jobq.explain_job(%s)', (SELECT id FROM ids WHERE name = 'h2')),
    format($$ VALUES ('sequence'::text, 'sequence held is held by dead job %s (requeue or delete it)'::text) $$, (SELECT id FROM ids WHERE name = 'h1')),
    'explain_job names the dead job holding it');

-- Requeued, the dead job runs first, then the next.
SELECT jobq.retry_job((SELECT id FROM ids WHERE name = 'h1'));
SELECT is_empty('SELECT * FROM jobq.sequence_holds', 'the hold is gone');
CREATE TEMP TABLE l2 AS SELECT * FROM jobq.claim_job('w', ARRAY['default'], 10) WHERE id <> (SELECT id FROM ids WHERE name = 'c2');
SELECT is((SELECT array_agg(id) FROM l2), ARRAY[(SELECT id FROM ids WHERE name = 'h1')], 'the requeued job runs, the next still waits');
SELECT jobq.fail_jobs(array_agg(id), array_agg(lease_token), array_agg('boom again'::text)) FROM l2;
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'h2')), 'blocked', 'dead again, it holds again');

-- Deleted, it lets the next go.
SELECT jobq.delete_job((SELECT id FROM ids WHERE name = 'h1'));
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'h2')), 'queued', 'deleting the dead job releases the next');

SELECT * FROM finish();
ROLLBACK;
