-- jobq.unschedule removes a schedule and its run records; the jobs it already enqueued stay. One
-- audit row (action unschedule, actor session_user) keeps what was removed: name, cron, task and
-- time zone. Other schedules are untouched.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick', timezone => 'Asia/Tokyo');
SELECT FROM jobq.schedule('pgtap-other', '*/5 * * * *', 'pgtap-tick');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 17:45:00+00';
CREATE TEMP TABLE ran AS SELECT * FROM jobq._enqueue_due_slots('2026-05-05 17:50:00+00');
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT is((SELECT count(*) FROM jobq.schedule_runs WHERE schedule = 'pgtap-tick'), 2::bigint, 'setup: the schedule ran two slots');
SELECT lives_ok($$ SELECT jobq.unschedule('pgtap-tick') $$, 'unschedule removes a schedule');
SELECT is_empty($$ SELECT * FROM jobq.schedules WHERE name = 'pgtap-tick' $$, 'the schedule is gone');
SELECT is_empty($$ SELECT * FROM jobq.schedule_runs WHERE schedule = 'pgtap-tick' $$, 'its run records are gone');
SELECT results_eq(
    $$ SELECT (SELECT count(*) FROM jobq.jobs), (SELECT count(*) FROM jobq.schedules), (SELECT count(*) FROM jobq.schedule_runs) $$,
    $$ VALUES (4::bigint, 1::bigint, 2::bigint) $$,
    'the four jobs already enqueued stay, and so do the other schedule and its runs');
SELECT results_eq(
    $$ SELECT action, job_id, detail, actor FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before) $$,
    $$ VALUES ('unschedule'::text, NULL::bigint,
              '{"schedule": "pgtap-tick", "cron": "*/5 * * * *", "task": "pgtap-tick", "timezone": "Asia/Tokyo"}'::jsonb,
              session_user::text COLLATE "default") $$,
    'one audit row records the removal, what was removed and who removed it');

SELECT * FROM finish();
ROLLBACK;
