-- enqueue_many returns one id per element, in input order, keyless and keyed mixed.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('a', 'b', 'c', 'd', 'e');

CREATE TEMP TABLE ids AS
SELECT row_number() OVER () AS pos, id
FROM jobq.enqueue_many($$[
    {"task": "a", "job_key": "pgtap:k-z"},
    {"task": "b"},
    {"task": "c", "job_key": "pgtap:k-a", "job_key_mode": "unsafe_dedupe"},
    {"task": "d", "queue": "other", "priority": 5},
    {"task": "e", "job_key": "pgtap:k-m", "job_key_mode": "preserve_run_at"}
]$$) AS id;

SELECT is((SELECT count(*) FROM ids), 5::bigint, 'enqueue_many returns one id per element');
SELECT is((SELECT count(DISTINCT id) FROM ids), 5::bigint, 'five distinct elements get five distinct jobs');
SELECT results_eq(
    $$ SELECT i.pos, j.task FROM ids i JOIN jobq.jobs j ON j.id = i.id ORDER BY i.pos $$,
    $$ VALUES (1::bigint, 'a'::text), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e') $$,
    'the n-th id returned is the job of the n-th element');
SELECT results_eq(
    $$ SELECT queue, priority FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE pos = 4) $$,
    $$ VALUES ('other'::text, 5::smallint) $$,
    'enqueue_many reads the fields of each element');
SELECT is_empty($$ SELECT * FROM jobq.enqueue_many('[]') $$, 'an empty array enqueues nothing and returns nothing');

SELECT * FROM finish();
ROLLBACK;
