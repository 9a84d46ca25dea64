-- unschedule of a name no schedule has is refused with JQ603 (JOB.UNKNOWN_SCHEDULE); it removes
-- and audits nothing.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick');
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT throws_ok($$ SELECT jobq.unschedule('pgtap-nope') $$, 'JQ603', 'JOB.UNKNOWN_SCHEDULE: schedule ''pgtap-nope''',
    'an unknown name is refused with JQ603');
SELECT throws_ok($$ SELECT jobq.unschedule(NULL) $$, 'JQ603', NULL, 'a NULL name is refused with JQ603');
SELECT is((SELECT count(*) FROM jobq.schedules), 1::bigint, 'the existing schedule is untouched');
SELECT is_empty($$ SELECT * FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before) $$, 'nothing was audited');

SELECT * FROM finish();
ROLLBACK;
