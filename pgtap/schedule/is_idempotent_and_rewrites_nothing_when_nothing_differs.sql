-- Runners declare their code's schedules at every start-up: a second identical call changes
-- nothing — the row is not rewritten, updated_at stays, and the schedule keeps its place.
BEGIN;
SELECT plan(6);

-- Known state, whatever database this runs in: no jobs, no schedules (nor, by cascade, their
-- runs), no workers, nobody leading (epoch 0), settings at their migration defaults. Everything
-- is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
DELETE FROM jobq.schedules;
DELETE FROM jobq.workers;
UPDATE jobq.leader SET holder = NULL, epoch = 0, acquired_at = NULL, lease_expires_at = NULL;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds'), ('worker_heartbeat_interval', '5 seconds'),
             ('worker_timeout', '30 seconds'), ('leader_ttl', '15 seconds'), ('maintain_interval', '1 second'),
             ('poll_interval', '1 second')) AS d(name, value)
WHERE s.name = d.name;
SELECT FROM jobq.define_task('pgtap-nightly');

SELECT FROM jobq.schedule('pgtap-nightly', '0 18 * * *', 'pgtap-nightly', '{"v": 1}', 'Asia/Tokyo', 'forbid', '1 hour', 'latest', '10 seconds');
-- Mark the row: a rewrite would change updated_at, next_slot_at and the row's physical address.
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 09:00:00+00', updated_at = '2026-01-01 00:00:00+00' WHERE name = 'pgtap-nightly';
CREATE TEMP TABLE before AS SELECT ctid AS row_at, * FROM jobq.schedules WHERE name = 'pgtap-nightly';

SELECT is(jobq.schedule('pgtap-nightly', '0 18 * * *', 'pgtap-nightly', '{"v": 1}', 'Asia/Tokyo', 'forbid', '1 hour', 'latest', '10 seconds'),
          '2026-05-05 09:00:00+00'::timestamptz, 'the second identical call returns the schedule''s next slot as it was');
SELECT results_eq($$ SELECT ctid AS row_at, * FROM jobq.schedules $$, $$ SELECT * FROM before $$,
                  'the second identical call leaves the row exactly as it was (same version: not rewritten)');
SELECT is((SELECT updated_at FROM jobq.schedules), '2026-01-01 00:00:00+00'::timestamptz, 'updated_at is unchanged');

SELECT FROM jobq.schedule('pgtap-plain', '*/5 * * * *', 'pgtap-nightly');
UPDATE jobq.schedules SET updated_at = '2026-01-01 00:00:00+00' WHERE name = 'pgtap-plain';
CREATE TEMP TABLE plain_before AS SELECT ctid AS row_at, * FROM jobq.schedules WHERE name = 'pgtap-plain';
SELECT FROM jobq.schedule('pgtap-plain', '*/5 * * * *', 'pgtap-nightly', '{}', 'UTC', 'allow', '15 minutes', 'all', '0', 'slotAt', NULL, NULL, NULL, true);
SELECT results_eq($$ SELECT ctid AS row_at, * FROM jobq.schedules WHERE name = 'pgtap-plain' $$, $$ SELECT * FROM plain_before $$,
                  'a call that spells out the defaults is identical to one that leaves them out');
SELECT FROM jobq.schedule('pgtap-plain', '*/5 * * * *', 'pgtap-nightly', backfill_window => '900 seconds');
SELECT results_eq($$ SELECT ctid AS row_at, * FROM jobq.schedules WHERE name = 'pgtap-plain' $$, $$ SELECT * FROM plain_before $$,
                  'an equal interval written differently (900 seconds for 15 minutes) is no change');
SELECT is_empty($$ SELECT * FROM jobq.jobs $$, 'no call enqueued anything');

SELECT * FROM finish();
ROLLBACK;
