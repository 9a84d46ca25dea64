BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('sync-store', scope => 'store');
SELECT jobq_test.tasks('ping');

CREATE TEMP TABLE job AS
SELECT jobq.enqueue(
    task         => '  sync-store  ',
    payload      => '{"storeId": "11111111-1111-1111-1111-111111111111", "full": true}',
    run_at       => now() + interval '5 minutes',
    job_key      => 'pgtap:sync:s-1',
    max_attempts => 4,
    priority     => -3,
    queue        => 'sync',
    store_id     => '11111111-1111-1111-1111-111111111111',
    timeout      => '2 minutes',
    backoff_base => '7 seconds',
    backoff_max  => '10 minutes') AS id;

SELECT results_eq(
    $$ SELECT task, payload, run_at, job_key, max_attempts, priority, queue, store_id, timeout, backoff_base, backoff_max
       FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('sync-store'::text, '{"storeId": "11111111-1111-1111-1111-111111111111", "full": true}'::jsonb, now() + interval '5 minutes',
               'pgtap:sync:s-1'::text, 4, (-3)::smallint, 'sync'::text, '11111111-1111-1111-1111-111111111111'::uuid,
               interval '2 minutes', interval '7 seconds', interval '10 minutes') $$,
    'enqueue stores every option it is given (task trimmed)');

SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM job)), 'queued',
          'a job enqueued for later is queued');
CREATE TEMP TABLE nullpayload AS SELECT jobq.enqueue('ping', payload => NULL) AS id;
SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT id FROM nullpayload)), '{}'::jsonb,
          'a NULL payload is stored as the empty object');

SELECT * FROM finish();
ROLLBACK;
