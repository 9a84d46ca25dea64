-- System jobs belong to no store: any session may enqueue one, but only an operator may cancel it,
-- so an application cannot cancel the scheduler's work.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-nightly-report');

CREATE TEMP TABLE sys AS SELECT jobq.enqueue('pgtap-nightly-report') AS id;
GRANT SELECT ON sys TO jobq_app, jobq_operator;

SET LOCAL ROLE jobq_app;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE id = (SELECT id FROM sys)), 1::bigint,
          'an application session without a store reads the system job');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM sys)), 'JQ202', NULL,
                 'but cannot cancel it: to the application it is not found');
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM sys)), 'JQ202', NULL,
                 'nor from inside a store');
RESET ROLE;
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM sys)), 'queued', 'the system job is untouched');

SET LOCAL ROLE jobq_operator;
SELECT is(jobq.cancel_job((SELECT id FROM sys)), 'canceled', 'an operator cancels it');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
