-- Runners declare their code's schedules at every start-up: a second identical call changes
-- nothing — the row is not rewritten, updated_at stays, and the schedule keeps its place.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-nightly');

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
