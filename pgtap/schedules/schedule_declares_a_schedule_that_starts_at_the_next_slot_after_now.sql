-- jobq.schedule declares a schedule: its task runs at every slot of its cron in its time zone.
-- It stores what it was given (with the documented defaults), starts at the first slot after
-- now() and returns that slot; declaring enqueues nothing and records no run.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-nightly');

SELECT is(jobq.schedule('pgtap-nightly', '0 18 * * *', 'pgtap-nightly'), jobq.cron_next('0 18 * * *', now()),
          'schedule returns the first slot after now()');
SELECT results_eq(
    $$ SELECT cron, fields, timezone, task, payload, slot_key, queue, priority, max_attempts, concurrency_policy,
              backfill_window, backfill, jitter, enabled, next_slot_at, last_slot_at, last_job_id, created_at, updated_at
       FROM jobq.schedules WHERE name = 'pgtap-nightly' $$,
    $$ VALUES ('0 18 * * *'::text, jobq.cron_parse('0 18 * * *'), 'UTC'::text, 'pgtap-nightly'::text, '{}'::jsonb, 'slotAt'::text,
              NULL::text, NULL::smallint, NULL::integer, 'allow'::text, interval '15 minutes', 'all'::text, interval '0', true,
              jobq.cron_next('0 18 * * *', now()), NULL::timestamptz, NULL::bigint, now(), now()) $$,
    'the defaults: UTC, empty payload plus slotAt, the task''s queue, priority and attempts, policy allow, backfill all within 15 minutes, no jitter, enabled');

SELECT is(jobq.schedule('pgtap-tokyo', '0 3 * * *', 'pgtap-nightly', '{"region": "jp"}', 'Asia/Tokyo', 'forbid', '1 hour', 'latest',
                        '30 seconds', 'runAt', 'pgtap_nightly', 5, 3, false),
          jobq.cron_next('0 3 * * *', now(), 'Asia/Tokyo'),
          'a schedule in Asia/Tokyo starts at the first 03:00 JST after now()');
SELECT results_eq(
    $$ SELECT cron, timezone, payload, slot_key, queue, priority, max_attempts, concurrency_policy, backfill_window, backfill, jitter, enabled
       FROM jobq.schedules WHERE name = 'pgtap-tokyo' $$,
    $$ VALUES ('0 3 * * *'::text, 'Asia/Tokyo'::text, '{"region": "jp"}'::jsonb, 'runAt'::text, 'pgtap_nightly'::text, 5::smallint, 3,
              'forbid'::text, interval '1 hour', 'latest'::text, interval '30 seconds', false) $$,
    'every option given is stored');
SELECT is_empty($$ SELECT * FROM jobq.schedule_runs $$, 'declaring records no run');
SELECT is_empty($$ SELECT * FROM jobq.jobs $$, 'declaring enqueues nothing');

SELECT * FROM finish();
ROLLBACK;
