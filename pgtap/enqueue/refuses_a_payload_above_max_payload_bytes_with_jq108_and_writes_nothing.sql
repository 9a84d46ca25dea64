-- The setting max_payload_bytes bounds the payload of every enqueue path (enqueue, enqueue_many,
-- fan_out, schedule): a larger one is refused with JOB.PAYLOAD_TOO_LARGE naming the payload.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('t', app_enqueue => true);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
UPDATE jobq.settings SET value = '4096' WHERE name = 'max_payload_bytes';

SET LOCAL ROLE jobq_app;
SELECT throws_like($$ SELECT jobq.enqueue('t', jsonb_build_object('x', repeat(md5(random()::text), 200))) $$,
    'JOB.PAYLOAD_TOO_LARGE: payload is % bytes; the limit is 4096 (setting max_payload_bytes)',
    'a keyed enqueue with a 6400-character payload is refused');
SELECT throws_like($$ SELECT jobq.enqueue_many(jsonb_build_array(jsonb_build_object('task', 't', 'payload',
                                                 jsonb_build_object('x', repeat(md5(random()::text), 200))))) $$,
    'JOB.PAYLOAD_TOO_LARGE: job 1: payload is % bytes; the limit is 4096 (setting max_payload_bytes)',
    'enqueue_many refuses it too, naming the element');
SELECT lives_ok($$ SELECT jobq.enqueue('t', jsonb_build_object('x', repeat('y', 3000))) $$,
    'a payload below the limit is accepted');
RESET ROLE;
SELECT throws_like($$ SELECT jobq.schedule('pgtap-big', '@daily', 't', jsonb_build_object('x', repeat(md5(random()::text), 200))) $$,
    'JOB.PAYLOAD_TOO_LARGE: payload is % bytes; the limit is 4096 (setting max_payload_bytes)',
    'schedule refuses a payload above the limit');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 1, 'only the job within the limit was written');
SELECT is((SELECT count(*) FROM jobq.schedules WHERE name = 'pgtap-big'), 0::bigint, 'no schedule was written');

SELECT * FROM finish();
ROLLBACK;
