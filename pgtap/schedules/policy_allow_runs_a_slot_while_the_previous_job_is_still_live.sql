-- Concurrency policy allow (the default): a slot runs whatever became of the previous slot's
-- job — still queued or running, a new job is enqueued next to it.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', queue => 'pgtap_sched');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00';
CREATE TEMP TABLE ran AS SELECT * FROM jobq._enqueue_due_slots('2026-05-05 10:00:00+00');

SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 11:00:00+00') $$,
    $$ VALUES ('2026-05-05 11:00:00+00'::timestamptz, 'enqueued'::text, NULL::text) $$,
    'the 11:00 slot runs while the 10:00 job is still queued');
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_sched'], 10);
SELECT is((SELECT count(*) FROM claimed), 2::bigint, 'setup: both jobs are running');
SELECT results_eq(
    $$ SELECT slot_at, outcome, reason FROM jobq._enqueue_due_slots('2026-05-05 12:00:00+00') $$,
    $$ VALUES ('2026-05-05 12:00:00+00'::timestamptz, 'enqueued'::text, NULL::text) $$,
    'the 12:00 slot runs while the earlier jobs are running');
SELECT results_eq(
    $$ SELECT payload ->> 'slotAt', state FROM jobq.jobs ORDER BY id $$,
    $$ VALUES ('2026-05-05T10:00:00Z'::text, 'running'::text), ('2026-05-05T11:00:00Z', 'running'), ('2026-05-05T12:00:00Z', 'queued') $$,
    'three live jobs, one per slot, side by side');

SELECT * FROM finish();
ROLLBACK;
