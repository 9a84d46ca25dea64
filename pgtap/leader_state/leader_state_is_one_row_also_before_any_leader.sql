-- jobq.leader_state() is one row: epoch 0 and no holder before any runner led, then the holder,
-- its epoch and whether its lease holds.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
UPDATE jobq.leader SET holder = NULL, epoch = 0, acquired_at = NULL, lease_expires_at = NULL, demoted_holder = NULL, demoted_until = NULL;
SELECT results_eq($$ SELECT holder, epoch, held FROM jobq.leader_state() $$, $$ VALUES (NULL::text, 0::bigint, false) $$,
    'before any leader: no holder, epoch 0, not held');
SELECT FROM jobq.acquire_leadership('w-a', interval '15 seconds');
SELECT results_eq($$ SELECT holder, held FROM jobq.leader_state() $$, $$ VALUES ('w-a'::text, true) $$, 'the holder, held');
UPDATE jobq.leader SET lease_expires_at = now() - interval '1 second';
SELECT is((SELECT held FROM jobq.leader_state()), false, 'an expired lease is not held');
DELETE FROM jobq.leader;
SELECT results_eq($$ SELECT holder, epoch, held FROM jobq.leader_state() $$, $$ VALUES (NULL::text, 0::bigint, false) $$,
    'without a row of jobq.leader: still one row, epoch 0');

SELECT * FROM finish();
ROLLBACK;
