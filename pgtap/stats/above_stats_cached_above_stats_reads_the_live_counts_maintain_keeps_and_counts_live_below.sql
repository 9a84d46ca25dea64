-- The live counts of jobq.stats (and jobq.queue_list, which the dashboard's overview and jobq stats
-- read) come from the count jobq.maintain keeps once that count found at least stats_cached_above
-- live jobs and is recent; jobq.stats_counted_at says when it was taken. Below the setting, for
-- one store's counts, for an application, and once the kept count is too old, they count live.
-- maintain counts no more often than stats_count_interval or twenty times the last count's
-- duration. The settings refuse values outside their ranges and change nothing then.
BEGIN;
SELECT plan(20);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT jobq_test.tasks('pgtap-system-task');
SELECT FROM jobq.enqueue('pgtap-system-task', queue => 'pgtap_kept');
SELECT FROM jobq.enqueue('pgtap-system-task', queue => 'pgtap_kept');
SELECT FROM jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', queue => 'pgtap_kept');

-- Far above the live jobs: maintain does not count them, and stats counts live.
UPDATE jobq.settings SET value = '2147483647' WHERE name = 'stats_cached_above';
SELECT is(jobq._count_live_jobs(now()), false, 'below half of stats_cached_above live jobs, maintain does not count them');
SELECT is(jobq.stats_counted_at(), NULL, 'stats_counted_at is NULL: stats counts live');

UPDATE jobq.settings SET value = '1' WHERE name = 'stats_cached_above';
SELECT FROM jobq.maintain();
SELECT results_eq($$ SELECT counted_at, total FROM jobq.live_counts_taken $$, $$ VALUES (now(), 3::bigint) $$,
                  'at or above it, maintain counts every live job and records when');
SELECT is(jobq.stats_counted_at(), now(), 'stats_counted_at gives the time of that count');

SELECT FROM jobq.enqueue('pgtap-system-task', queue => 'pgtap_kept');
SELECT FROM jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', queue => 'pgtap_kept');
SELECT results_eq($$ SELECT queue, store_id, queued FROM jobq.stats() $$,
                  $$ VALUES ('pgtap_kept'::text, NULL::uuid, 3::bigint) $$,
                  'an operator''s stats of every store read the kept count: the jobs enqueued since are not in it');
SELECT results_eq($$ SELECT queue, queued FROM jobq.queue_list() $$,
                  $$ SELECT queue, queued FROM jobq.stats() $$,
                  'jobq.queue_list reads the same kept count as stats');
SELECT results_eq($$ SELECT queue, queued FROM jobq.stats(store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
                  $$ VALUES ('pgtap_kept'::text, 2::bigint) $$,
                  'one store''s counts are counted live');
SELECT is(jobq.stats_counted_at('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'), NULL, 'and stats_counted_at says so for that store');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq($$ SELECT queue, queued, jobq.stats_counted_at() IS NULL FROM jobq.stats() $$,
                  $$ VALUES ('pgtap_kept'::text, 2::bigint, true) $$,
                  'an application counts its store live, never the kept count of every store');
SELECT throws_ok($$ SELECT * FROM jobq.live_counts $$, '42501', NULL, 'an application cannot read the kept counts');
RESET ROLE;
SELECT ok(NOT has_table_privilege('jobq_operator', 'jobq.live_counts', 'SELECT')
          AND NOT has_table_privilege('jobq_viewer', 'jobq.live_counts_taken', 'SELECT'),
          'no role but the engine reads the tables of kept counts');

SELECT is(jobq._count_live_jobs(now() + interval '4 seconds'), false, 'maintain does not count again before stats_count_interval (5 seconds)');
UPDATE jobq.live_counts_taken SET took = interval '1 second';
SELECT is(jobq._count_live_jobs(now() + interval '6 seconds'), false, 'nor before twenty times the last count''s duration');

UPDATE jobq.live_counts_taken SET counted_at = now() - interval '59 seconds';
SELECT is(jobq.stats_counted_at(), now() - interval '59 seconds', 'a count that took 1 second is read for 3 x 20 seconds');
UPDATE jobq.live_counts_taken SET counted_at = now() - interval '16 seconds', took = interval '0';
SELECT results_eq($$ SELECT queued, jobq.stats_counted_at() IS NULL FROM jobq.stats() $$,
                  $$ VALUES (5::bigint, true) $$,
                  'a kept count older than 3 x stats_count_interval is not read: stats counts live again');
SELECT is(jobq._count_live_jobs(now()), true, 'once stats_count_interval has passed since the last count, maintain counts again');
SELECT results_eq($$ SELECT queued, jobq.stats_counted_at() FROM jobq.stats() $$,
                  $$ VALUES (5::bigint, now()) $$,
                  'and stats reads the new count, with the jobs enqueued since');
SELECT is(jobq._count_live_jobs(now() - interval '1 minute'), true,
          'a kept count stamped after the caller''s time (a clock moved back) is due at once, not kept until then');

CREATE TEMP TABLE before AS SELECT name, value FROM jobq.settings;
SELECT is(jobq_test.error_of($$ SELECT jobq.set_setting('stats_cached_above', '0') $$) || ' ' ||
          jobq_test.error_of($$ SELECT jobq.set_setting('stats_cached_above', '99999999999') $$) || ' ' ||
          jobq_test.error_of($$ SELECT jobq.set_setting('stats_count_interval', '-infinity') $$) || ' ' ||
          jobq_test.error_of($$ SELECT jobq.set_setting('stats_count_interval', '2 days') $$),
          'JQ204 JOB.UNKNOWN_SETTING: ''0'' is not a valid positive integer for setting stats_cached_above '
          'JQ204 JOB.UNKNOWN_SETTING: ''99999999999'' is not a valid positive integer for setting stats_cached_above '
          'JQ204 JOB.UNKNOWN_SETTING: ''-infinity'' is not a valid positive interval for setting stats_count_interval '
          'JQ107 JOB.OUT_OF_RANGE: value of setting stats_count_interval 2 days is above the limit of 1 day',
          'the settings refuse 0, a value above an integer, -infinity and above 1 day with the catalogued errors');
SELECT set_eq($$ SELECT name, value FROM jobq.settings $$, $$ SELECT name, value FROM before $$, 'and change no setting');

SELECT * FROM finish();
ROLLBACK;
