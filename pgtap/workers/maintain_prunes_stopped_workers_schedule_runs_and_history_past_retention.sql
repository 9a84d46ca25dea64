-- Retention: jobq._maintain(…, p_now) deletes what is older than the history_retention setting —
-- finished jobs in jobq.job_history, jobq.schedule_runs rows, and stopped or lost workers — and
-- keeps everything younger, and every worker that is still active, draining or detached.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
-- Workers: stopped or lost for eight days, stopped today, active.
SELECT FROM unnest(ARRAY['pgtap-old-stopped', 'pgtap-old-lost', 'pgtap-new-stopped', 'pgtap-active']) AS w(id)
CROSS JOIN LATERAL jobq.register_worker(w.id, 'node', 1, ARRAY['pgtap_q'], 1) AS r;
SELECT FROM jobq.deregister_worker('pgtap-old-stopped');
SELECT FROM jobq.deregister_worker('pgtap-new-stopped');
UPDATE jobq.workers SET state = 'lost' WHERE id = 'pgtap-old-lost';
UPDATE jobq.workers SET state_changed_at = now() - interval '8 days' WHERE id IN ('pgtap-old-stopped', 'pgtap-old-lost');
-- Schedule runs: one eight days old, one new.
SELECT FROM jobq.schedule('pgtap-t', '0 * * * *', 'pgtap-t');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00', backfill_window = '1 day';
SELECT FROM jobq._enqueue_due_slots('2026-05-05 11:00:00+00');
UPDATE jobq.schedule_runs SET created_at = now() - interval '8 days' WHERE slot_at = '2026-05-05 10:00:00+00';
UPDATE jobq.schedules SET enabled = false;  -- so that maintain runs no more slots of it
-- History: one job finished eight days ago, one today.
SELECT FROM (SELECT id FROM jobq.jobs ORDER BY id) AS j CROSS JOIN LATERAL jobq.cancel_job(j.id) AS c;
UPDATE jobq.job_history SET finished_at = now() - interval '8 days' WHERE payload ->> 'slotAt' = '2026-05-05T10:00:00Z';

SELECT is(jobq._maintain(NULL, NULL, now()) -> 'history_pruned', '1'::jsonb, 'maintain reports one history row pruned');
SELECT is((SELECT array_agg(payload ->> 'slotAt') FROM jobq.job_history), ARRAY['2026-05-05T11:00:00Z'], 'the job finished today stays in history');
SELECT is((SELECT array_agg(slot_at) FROM jobq.schedule_runs), ARRAY['2026-05-05 11:00:00+00'::timestamptz], 'the new schedule run stays, the old one is gone');
SELECT results_eq($$ SELECT id, state FROM jobq.workers ORDER BY id $$,
                  $$ VALUES ('pgtap-active'::text, 'active'::text), ('pgtap-new-stopped', 'stopped') $$,
                  'workers stopped or lost for longer than the retention are gone; the active one and the one stopped today stay');
SELECT is(jobq._maintain(NULL, NULL, now()) -> 'history_pruned', '0'::jsonb, 'a second call prunes nothing more');

SELECT * FROM finish();
ROLLBACK;
