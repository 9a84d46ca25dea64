-- A declaration that differs updates the schedule. A changed cron or time zone restarts it from
-- the first slot after now(); any other change (payload, policy, backfill, enabled, ...) keeps
-- next_slot_at, so a redeploy neither skips nor repeats a slot.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-nightly', 'pgtap-other');

SELECT FROM jobq.schedule('pgtap-nightly', '0 18 * * *', 'pgtap-nightly');
-- A place the schedule has reached (not a slot after now(), so a restart would show).
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 18:00:00+00', last_slot_at = '2026-05-04 18:00:00+00',
                          updated_at = '2026-01-01 00:00:00+00';

SELECT is(jobq.schedule('pgtap-nightly', '0 18 * * *', 'pgtap-nightly', '{"v": 2}'), '2026-05-05 18:00:00+00'::timestamptz,
          'a changed payload keeps next_slot_at');
SELECT results_eq($$ SELECT payload, updated_at, last_slot_at FROM jobq.schedules $$,
                  $$ VALUES ('{"v": 2}'::jsonb, now(), '2026-05-04 18:00:00+00'::timestamptz) $$,
                  'the new payload is stored, updated_at is now(), last_slot_at is kept');
SELECT is(jobq.schedule('pgtap-nightly', '0 18 * * *', 'pgtap-other', '{"v": 2}', concurrency_policy => 'replace', backfill => 'latest',
                        backfill_window => '1 hour', jitter => '1 minute', queue => 'pgtap_q', priority => -1, max_attempts => 2),
          '2026-05-05 18:00:00+00'::timestamptz, 'a changed task, policy, backfill, jitter, queue, priority or attempts keeps next_slot_at');
SELECT is(jobq.schedule('pgtap-nightly', '0 18 * * *', 'pgtap-other', '{"v": 2}', concurrency_policy => 'replace', backfill => 'latest',
                        backfill_window => '1 hour', jitter => '1 minute', queue => 'pgtap_q', priority => -1, max_attempts => 2, enabled => false),
          '2026-05-05 18:00:00+00'::timestamptz, 'disabling keeps next_slot_at');

SELECT is(jobq.schedule('pgtap-nightly', '0 17 * * *', 'pgtap-other'), jobq.cron_next('0 17 * * *', now()),
          'a changed cron restarts from its first slot after now()');
SELECT is((SELECT next_slot_at FROM jobq.schedules), jobq.cron_next('0 17 * * *', now()), 'and stores it as next_slot_at');
SELECT is((SELECT fields FROM jobq.schedules), jobq.cron_parse('0 17 * * *'), 'the parsed fields follow the new cron');

UPDATE jobq.schedules SET next_slot_at = '2026-05-05 17:00:00+00';
SELECT is(jobq.schedule('pgtap-nightly', '0 17 * * *', 'pgtap-other', timezone => 'Asia/Tokyo'), jobq.cron_next('0 17 * * *', now(), 'Asia/Tokyo'),
          'a changed time zone restarts from the first slot after now() in the new zone');
SELECT is(jobq.schedule('pgtap-nightly', '0 17 * * *', 'pgtap-other', timezone => 'Asia/Tokyo', enabled => false),
          jobq.cron_next('0 17 * * *', now(), 'Asia/Tokyo'), 'a later change of something else keeps that place');

SELECT * FROM finish();
ROLLBACK;
