-- job_key (500 characters) and queue (200) stay far below the btree row limit of their indexes:
-- a longer one is refused with JOB.VALUE_TOO_LONG naming it, instead of 54000, and nothing is
-- written. (Keyed, or through enqueue_many: keyless enqueue checks it once the fast path calls
-- jobq._spec_in_bounds.)
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('t', app_enqueue => true);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

-- As worker_runtime: runners key system jobs (applications may not, JOB.NOT_ALLOWED).
SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.enqueue('t', job_key => repeat('k', 501)) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: job_key is 501 characters long; the limit is 500', 'a 501-character job_key is refused');
SELECT throws_ok($$ SELECT jobq.enqueue('t', job_key => repeat(md5(random()::text), 100)) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: job_key is 3200 characters long; the limit is 500',
    'a 3200-character incompressible job_key is refused with JQ106, not 54000 (index row too large)');
SELECT throws_ok($$ SELECT jobq.enqueue('t', queue => repeat('q', 201), job_key => 'k') $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: queue is 201 characters long; the limit is 200', 'a 201-character queue is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many(jsonb_build_array(jsonb_build_object('task', 't'),
                                                                jsonb_build_object('task', 't', 'queue', repeat('é', 201)))) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: job 2: queue is 201 characters long; the limit is 200',
    'enqueue_many names the element and the field of a keyless job with a long queue (characters, not bytes)');
SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => repeat('é', 200), job_key => repeat('k', 500)) $$,
    'a queue and a job_key at their limits are accepted');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 1, 'only the job within the limits was written');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE char_length(queue) > 200 OR char_length(job_key) > 500), 0::bigint,
          'no job holds an overlong queue or key');

SELECT * FROM finish();
ROLLBACK;
