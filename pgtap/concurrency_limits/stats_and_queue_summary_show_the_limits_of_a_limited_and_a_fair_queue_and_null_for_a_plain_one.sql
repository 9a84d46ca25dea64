-- jobq.stats() and jobq.queue_summary() carry each queue's flow controls in limits, the object
-- jobq.queue_states() shows: the limits that are set, fair when fair claiming is on, NULL for a
-- queue without controls (a plain one, and one whose only limit was removed). A queue named to
-- stats without jobs still gets its limits.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q) FROM (VALUES ('pgtap_limited'), ('pgtap_fair'), ('pgtap_plain'), ('pgtap_removed')) AS v(q);
SELECT jobq.set_concurrency_limit('pgtap_limited', 5);
SELECT jobq.set_store_concurrency_limit('pgtap_limited', 1);
SELECT jobq.set_rate_limit('pgtap_limited', 100, '1 minute');
SELECT jobq.set_fair_claiming('pgtap_fair', true);
SELECT jobq.set_concurrency_limit('pgtap_removed', 2);
SELECT jobq.set_concurrency_limit('pgtap_removed', NULL);

SELECT results_eq(
    $$ SELECT queue, limits FROM jobq.stats() ORDER BY queue $$,
    $$ VALUES ('pgtap_fair'::text, '{"fair": true}'::jsonb),
              ('pgtap_limited', '{"max_running": 5, "max_running_per_store": 1, "max_started": 100, "started_per": "00:01:00"}'),
              ('pgtap_plain', NULL),
              ('pgtap_removed', NULL) $$,
    'stats: the limited queue''s limits, the fair queue''s fair, NULL for the plain queue and the one whose limit was removed');
SELECT results_eq(
    $$ SELECT queue, limits FROM jobq.queue_summary() ORDER BY queue $$,
    $$ SELECT queue, limits FROM jobq.queue_states() ORDER BY queue $$,
    'queue_summary: the same limits as queue_states, queue by queue');
SELECT is((SELECT limits FROM jobq.queue_summary() WHERE queue = 'pgtap_limited'),
          '{"max_running": 5, "max_running_per_store": 1, "max_started": 100, "started_per": "00:01:00"}'::jsonb,
          'queue_summary: the limited queue''s limits');

-- A queue with controls and no job: the row of zeros stats gives a named queue carries them.
DELETE FROM jobq.jobs WHERE queue = 'pgtap_fair';
SELECT results_eq($$ SELECT queue, queued, limits FROM jobq.stats('pgtap_fair') $$,
                  $$ VALUES ('pgtap_fair'::text, 0::bigint, '{"fair": true}'::jsonb) $$,
                  'stats of a named queue without jobs: its limits');
SELECT results_eq($$ SELECT queue, limits FROM jobq.stats('pgtap_never_seen') $$,
                  $$ VALUES ('pgtap_never_seen'::text, NULL::jsonb) $$,
                  'stats of a queue nothing knows: NULL');

SELECT * FROM finish();
ROLLBACK;
