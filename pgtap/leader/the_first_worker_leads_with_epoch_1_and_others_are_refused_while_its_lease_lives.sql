-- jobq._acquire_leadership(worker, ttl, p_now) — jobq.acquire_leadership at time p_now. With
-- nobody leading, the first worker to ask takes the leadership: epoch 1, a lease of ttl. Any other
-- worker is refused (NULL) while that lease lives, and the refusal changes nothing.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();

SELECT is(jobq._acquire_leadership('pgtap-w1', '15 seconds', '2026-05-05 12:00:00+00'), 1::bigint, 'w1 asks first and leads with epoch 1');
SELECT results_eq($$ SELECT holder, epoch, acquired_at, lease_expires_at FROM jobq.leader $$,
                  $$ VALUES ('pgtap-w1'::text, 1::bigint, '2026-05-05 12:00:00+00'::timestamptz, '2026-05-05 12:00:15+00'::timestamptz) $$,
                  'jobq.leader names w1, epoch 1, since 12:00:00, lease until 12:00:15');
CREATE TEMP TABLE before AS SELECT * FROM jobq.leader;
SELECT is(jobq._acquire_leadership('pgtap-w2', '15 seconds', '2026-05-05 12:00:05+00'), NULL::bigint, 'w2 is refused while w1''s lease lives');
SELECT is(jobq._acquire_leadership('pgtap-w2', '15 seconds', '2026-05-05 12:00:14.999999+00'), NULL::bigint, 'up to its last microsecond');
SELECT results_eq($$ SELECT * FROM jobq.leader $$, $$ SELECT * FROM before $$, 'the refusals changed nothing');
SELECT is((SELECT count(*) FROM jobq.leader), 1::bigint, 'there is one leadership row');

SELECT * FROM finish();
ROLLBACK;
