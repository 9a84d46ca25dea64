-- A claim changes no column an index of jobq.jobs reads (migration 00036), so PostgreSQL makes
-- each claimed row a HOT update: a new row version in its page and no index entry. Counted with
-- pg_stat_get_xact_tuples_updated / _hot_updated, this transaction's updates of jobq.jobs. A job
-- of a limited queue is flagged counted by its claim (jobs_counted_idx holds it), so its claim is
-- not HOT: the limits count it through that index, and it leaves jobs_claim_idx (ready false), so
-- that its entry there is not written again for the running version.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT count(jobq.enqueue('t', queue => 'plain')) FROM generate_series(1, 200);
SELECT count(jobq.enqueue('t', queue => 'limited')) FROM generate_series(1, 3);
SELECT jobq.set_concurrency_limit('limited', 10);
CREATE TEMP TABLE before AS
SELECT pg_stat_get_xact_tuples_updated('jobq.jobs'::regclass) AS updated,
       pg_stat_get_xact_tuples_hot_updated('jobq.jobs'::regclass) AS hot;

SELECT is((SELECT count(*) FROM jobq.claim_job('w', ARRAY['plain'], 150)), 150::bigint, 'setup: a claim of 150 jobs');
SELECT is((SELECT count(*) FROM jobq.claim_job('w', ARRAY['plain'], 1)), 1::bigint, 'and a claim of one');
SELECT results_eq(
    $$ SELECT pg_stat_get_xact_tuples_updated('jobq.jobs'::regclass) - b.updated,
              pg_stat_get_xact_tuples_hot_updated('jobq.jobs'::regclass) - b.hot FROM before b $$,
    $$ VALUES (151::bigint, 151::bigint) $$,
    'each of the 151 claimed rows was a HOT update');

TRUNCATE before;
INSERT INTO before SELECT pg_stat_get_xact_tuples_updated('jobq.jobs'::regclass), pg_stat_get_xact_tuples_hot_updated('jobq.jobs'::regclass);
SELECT is((SELECT count(*) FROM jobq.claim_job('w', ARRAY['limited'], 3)), 3::bigint, 'setup: a claim of 3 jobs of the limited queue');
SELECT results_eq(
    $$ SELECT pg_stat_get_xact_tuples_updated('jobq.jobs'::regclass) - b.updated,
              pg_stat_get_xact_tuples_hot_updated('jobq.jobs'::regclass) - b.hot,
              (SELECT count(*) FROM jobq.jobs WHERE counted) FROM before b $$,
    $$ VALUES (3::bigint, 0::bigint, 3::bigint) $$,
    'the limited queue''s claimed rows are flagged counted, and so not HOT');
SELECT results_eq(
    $$ SELECT count(*) FILTER (WHERE ready), count(*) FILTER (WHERE NOT ready) FROM jobq.jobs WHERE state = 'running' $$,
    $$ VALUES (151::bigint, 3::bigint) $$,
    'the plain queue''s running jobs stay ready (in jobs_claim_idx), the limited queue''s are not');

SELECT * FROM finish();
ROLLBACK;
