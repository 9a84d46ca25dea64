-- jobq.schedule_list() lists the schedules by name with their next three slots and their five
-- latest runs, newest first.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.schedule('pgtap-b', '0 3 * * *', 'pgtap-t');
SELECT FROM jobq.schedule('pgtap-a', '*/5 * * * *', 'pgtap-t', queue => 'pgtap_q');
INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, created_at)
SELECT 'pgtap-a', '2026-01-01 00:00:00+00'::timestamptz + n * interval '5 minutes', 'enqueued', '2026-01-01 00:00:00+00'::timestamptz + n * interval '5 minutes'
FROM generate_series(1, 7) n;

SELECT results_eq($$ SELECT name, queue, cardinality(upcoming), jsonb_array_length(runs) FROM jobq.schedule_list() $$,
    $$ VALUES ('pgtap-a'::text, 'pgtap_q'::text, 3, 5), ('pgtap-b', NULL, 3, 0) $$,
    'every schedule by name, three next slots, at most five runs');
SELECT ok((SELECT bool_and(u > now()) FROM jobq.schedule_list() s CROSS JOIN unnest(s.upcoming) u), 'the next slots are after now');
SELECT is((SELECT (runs -> 0 ->> 'slot_at')::timestamptz FROM jobq.schedule_list() WHERE name = 'pgtap-a'),
    '2026-01-01 00:35:00+00'::timestamptz, 'the runs are newest first');

SELECT * FROM finish();
ROLLBACK;
