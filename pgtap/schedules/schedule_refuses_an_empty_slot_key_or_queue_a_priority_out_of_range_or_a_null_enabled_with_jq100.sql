-- Like define_task and enqueue, schedule refuses an empty queue, an empty slot key (NULL means
-- "add no slot key"), a priority outside -32768..32767 and a NULL enabled with its catalogued
-- JQ100 (JOB.INVALID_ARGUMENT), not with a bare constraint or range error.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-nightly');

SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', slot_key => '') $$, 'JQ100', NULL,
    'an empty slot key is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', queue => '') $$, 'JQ100', NULL,
    'an empty queue is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', priority => 40000) $$, 'JQ100', NULL,
    'a priority outside -32768..32767 is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', enabled => NULL) $$, 'JQ100', NULL,
    'a NULL enabled is refused with JQ100');
SELECT is(jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', slot_key => NULL), jobq.cron_next('0 18 * * *', now()),
    'a NULL slot key is accepted: the jobs get the payload as it is');

SELECT * FROM finish();
ROLLBACK;
