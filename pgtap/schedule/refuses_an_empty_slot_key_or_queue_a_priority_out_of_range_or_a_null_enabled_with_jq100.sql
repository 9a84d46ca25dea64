-- Like define_task and enqueue, schedule refuses an empty queue, an empty slot key (NULL means
-- "add no slot key"), a priority outside -32768..32767 and a NULL enabled with its catalogued
-- JQ100 (JOB.INVALID_ARGUMENT), not with a bare constraint or range error.
BEGIN;
SELECT plan(5);

-- Known state, whatever database this runs in: no jobs, no schedules (nor, by cascade, their
-- runs), no workers, nobody leading (epoch 0), settings at their migration defaults. Everything
-- is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
DELETE FROM jobq.schedules;
DELETE FROM jobq.workers;
UPDATE jobq.leader SET holder = NULL, epoch = 0, acquired_at = NULL, lease_expires_at = NULL;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds'), ('worker_heartbeat_interval', '5 seconds'),
             ('worker_timeout', '30 seconds'), ('leader_ttl', '15 seconds'), ('maintain_interval', '1 second'),
             ('poll_interval', '1 second')) AS d(name, value)
WHERE s.name = d.name;
SELECT FROM jobq.define_task('pgtap-nightly');

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
