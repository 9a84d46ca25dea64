-- Fencing. jobq._maintain(worker, epoch, p_now) — jobq.maintain at time p_now — acts only while
-- that worker leads with that epoch under a live lease. A paused leader that wakes up after
-- another took over calls it with its old epoch: it gets {"fenced": true, ...} and changes
-- nothing, though a slot is due and a lease has expired. The current leader's call does the work.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick');
-- At t, the top of the hour after next: a slot due, and a lease expired.
CREATE TEMP TABLE t AS SELECT date_trunc('hour', now()) + interval '2 hours' AS at;
UPDATE jobq.schedules SET next_slot_at = (SELECT at FROM t);
SELECT FROM jobq.enqueue('pgtap-tick', queue => 'pgtap_q');
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('pgtap-w9', ARRAY['pgtap_q'], 1, '1 minute');

SELECT is(jobq._acquire_leadership('pgtap-w1', '15 seconds', (SELECT at FROM t) - interval '1 minute'), 1::bigint, 'w1 led with epoch 1');
SELECT is(jobq._acquire_leadership('pgtap-w2', '15 seconds', (SELECT at FROM t) - interval '10 seconds'), 2::bigint,
          'w1 paused; its lease lapsed and w2 took over with epoch 2');

CREATE TEMP TABLE jobs_before AS SELECT * FROM jobq.jobs;
CREATE TEMP TABLE schedules_before AS SELECT * FROM jobq.schedules;
CREATE TEMP TABLE fenced AS SELECT jobq._maintain('pgtap-w1', 1, (SELECT at FROM t)) AS r;
SELECT is((SELECT r FROM fenced), '{"fenced": true, "epoch": 1, "current_epoch": 2, "holder": "pgtap-w2"}'::jsonb,
          'w1''s maintain with epoch 1 is fenced, and says who leads with which epoch');
SELECT results_eq($$ SELECT * FROM jobq.jobs $$, $$ SELECT * FROM jobs_before $$, 'the fenced call enqueued no slot and rescued no lease');
SELECT results_eq($$ SELECT * FROM jobq.schedules $$, $$ SELECT * FROM schedules_before $$, 'nor moved any schedule on');
SELECT is(jobq._maintain('pgtap-w2', 1, (SELECT at FROM t)) ->> 'fenced', 'true', 'the right worker with a wrong epoch is fenced too');
SELECT is(jobq._maintain('pgtap-w2', 2, (SELECT at FROM t) + interval '1 minute') ->> 'fenced', 'true',
          'so is the leader itself once its own lease has lapsed (w2''s ran out at t + 5 seconds)');

CREATE TEMP TABLE acted AS SELECT jobq._maintain('pgtap-w2', 2, (SELECT at FROM t)) AS r;
SELECT results_eq($$ SELECT r -> 'fenced', r -> 'epoch', r -> 'slots_enqueued', r -> 'rescued' FROM acted $$,
                  $$ VALUES ('false'::jsonb, '2'::jsonb, '1'::jsonb, '1'::jsonb) $$,
                  'w2''s maintain with epoch 2 acts: one slot enqueued, one lease rescued');
SELECT results_eq($$ SELECT (SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM claimed)), (SELECT count(*) FROM jobq.schedule_runs) $$,
                  $$ VALUES ('retry_pending'::text, 1::bigint) $$, 'the expired lease went back to the queue and the slot was recorded');

SELECT * FROM finish();
ROLLBACK;
