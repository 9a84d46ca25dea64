-- fan_out checks the bounds of its own arguments before it lists the stores: a key template whose
-- keys would pass the job_key limit (500 characters once {storeId} is a uuid), a payload above
-- max_payload_bytes and a run_at outside 1970..9999 are refused once, naming the argument, whether
-- there are three stores or none, and nothing is written.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.stores('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-store-task', '{}', repeat('k', 465) || '{storeId}') $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: job_key_template is 474 characters long; the limit is 473',
    'a template whose keys would be 501 characters is refused, naming job_key_template');
SELECT is(jobq.fan_out('pgtap-store-task', '{}', repeat('k', 464) || '{storeId}'), 3,
          'a template whose keys are exactly 500 characters is accepted');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-store-task', jsonb_build_object('blob', repeat('x', 1100000))) $$,
    'JQ108', NULL, 'a payload above max_payload_bytes is refused');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-store-task', '{}', run_at => '-infinity') $$,
    'JQ107', NULL, 'a run_at outside 1970..9999 is refused');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE char_length(job_key) > 500 OR pg_column_size(payload) > 1048576), 0::bigint,
          'no refused job was written');

DELETE FROM public.store;
SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-store-task', '{}', repeat('k', 600) || '{storeId}') $$,
    'JQ106', NULL, 'with no store at all, the overlong template is still refused');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-store-task', jsonb_build_object('blob', repeat('x', 1100000))) $$,
    'JQ108', NULL, 'and so is the payload');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
