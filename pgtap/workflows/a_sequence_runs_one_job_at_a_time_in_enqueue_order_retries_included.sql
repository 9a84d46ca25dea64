-- Jobs of one sequence key (per store) run one at a time in enqueue order: only the head is
-- claimable, the others are blocked; a failed attempt waiting for its retry keeps the sequence
-- (job 2 does not overtake job 1, unlike a partition limit of 1); keys are independent of each
-- other; explain_job names the job ahead; retry_job will not run a blocked job out of order (JQ203). A head snoozed for a year holds its sequence for that
-- year (a documented outcome: an operator cancels or retries it).
BEGIN;
SELECT plan(12);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-wf');
CREATE TEMP TABLE ids (name text PRIMARY KEY, id bigint);
INSERT INTO ids VALUES ('a1', jobq.enqueue('pgtap-wf', sequence_key => 'acct-a'));
INSERT INTO ids VALUES ('a2', jobq.enqueue('pgtap-wf', sequence_key => 'acct-a'));
INSERT INTO ids VALUES ('b1', jobq.enqueue('pgtap-wf', sequence_key => 'acct-b'));

SELECT results_eq('SELECT name, state FROM ids JOIN jobq.jobs USING (id) ORDER BY name',
    $$ VALUES ('a1'::text, 'queued'::text), ('a2', 'blocked'), ('b1', 'queued') $$,
    'each key''s first job is queued; the second of acct-a waits');
SELECT results_eq(format('SELECT rule, detail FROM jobq.explain_job(%s)', (SELECT id FROM ids WHERE name = 'a2')),
    format($$ VALUES ('sequence'::text, 'job %s is ahead of it in sequence acct-a'::text) $$, (SELECT id FROM ids WHERE name = 'a1')),
    'explain_job names the rule sequence and the job ahead');

SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM ids WHERE name = 'a2')), 'JQ203', NULL,
    'retry_job of a blocked job: JQ203, it keeps its place');
CREATE TEMP TABLE l1 AS SELECT * FROM jobq.claim_job('w', ARRAY['default'], 10);
SELECT is((SELECT array_agg(id ORDER BY id) FROM l1), ARRAY[(SELECT id FROM ids WHERE name = 'a1'), (SELECT id FROM ids WHERE name = 'b1')],
          'a claim takes the head of each key, fair between keys');

-- a1 fails and waits for its retry: a2 still waits.
SELECT is((SELECT f.outcome FROM l1 CROSS JOIN LATERAL jobq.fail_jobs(ARRAY[l1.id], ARRAY[l1.lease_token], ARRAY['boom']) AS f
           WHERE l1.id = (SELECT id FROM ids WHERE name = 'a1')), 'retry_pending', 'the head fails, to retry');
UPDATE jobq.jobs SET run_at = now() - interval '1 second' WHERE id = (SELECT id FROM ids WHERE name = 'a1');
CREATE TEMP TABLE l2 AS SELECT * FROM jobq.claim_job('w', ARRAY['default'], 10);
SELECT is((SELECT array_agg(id) FROM l2), ARRAY[(SELECT id FROM ids WHERE name = 'a1')], 'its retry runs before the second job');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'a2')), 'blocked', 'which still waits');
SELECT jobq.complete_job(id, lease_token) FROM l2;
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'a2')), 'queued', 'the head done, the next is queued');

-- A head snoozed for a year holds the sequence for that year.
INSERT INTO ids VALUES ('s1', jobq.enqueue('pgtap-wf', sequence_key => 'slow'));
INSERT INTO ids VALUES ('s2', jobq.enqueue('pgtap-wf', sequence_key => 'slow'));
CREATE TEMP TABLE l3 AS SELECT * FROM jobq.claim_job('w', ARRAY['default'], 10);
SELECT ok((SELECT id FROM ids WHERE name = 's1') IN (SELECT id FROM l3), 's1 runs');
SELECT jobq.snooze_jobs(ARRAY[id], ARRAY[lease_token], interval '365 days') FROM l3 WHERE id = (SELECT id FROM ids WHERE name = 's1');
SELECT results_eq('SELECT name, state FROM ids JOIN jobq.jobs USING (id) WHERE name LIKE ''s%'' ORDER BY name',
    $$ VALUES ('s1'::text, 'queued'::text), ('s2', 'blocked') $$, 'snoozed, it stays the head: s2 waits the year');
SELECT results_eq(format('SELECT rule FROM jobq.explain_job(%s)', (SELECT id FROM ids WHERE name = 's2')),
    $$ VALUES ('sequence'::text) $$, 'explain_job says why');
SELECT jobq.cancel_job((SELECT id FROM ids WHERE name = 's1'));
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 's2')), 'queued', 'an operator''s cancel of the head lets s2 go');

SELECT * FROM finish();
ROLLBACK;
