BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('refresh', 'other');

CREATE TEMP TABLE ids AS
SELECT row_number() OVER () AS pos, id
FROM jobq.enqueue_many($$[
    {"task": "refresh", "job_key": "pgtap:refresh:1", "payload": {"v": 1}},
    {"task": "other"},
    {"task": "refresh", "job_key": "pgtap:refresh:1", "payload": {"v": 2}}
]$$) AS id;

SELECT is((SELECT id FROM ids WHERE pos = 1), (SELECT id FROM ids WHERE pos = 3),
          'both positions of a duplicated key get the same id');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:refresh:1'), 1::bigint,
          'a key duplicated within one batch creates one job');
SELECT is((SELECT payload FROM jobq.jobs WHERE job_key = 'pgtap:refresh:1'), '{"v": 2}'::jsonb,
          'the last element of a duplicated key wins');
SELECT isnt((SELECT id FROM ids WHERE pos = 2), (SELECT id FROM ids WHERE pos = 1),
            'the keyless element in between gets its own job');

SELECT * FROM finish();
ROLLBACK;
