-- jobq.demote_leader: the epoch grows by one, nobody holds it and the lease is expired, so the
-- old leader's fenced maintain returns {"fenced": true} at once; a runner leads again only by
-- winning acquire_leadership, with a newer epoch (the old leader after its hold-off:
-- a_demoted_leader_is_held_off_for_leader_ttl.sql). Audited with the old holder and both epochs.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 4);
SELECT FROM jobq.register_worker('pgtap-w2', 'node-b', 202, ARRAY['default'], 4);
SELECT is(jobq.acquire_leadership('pgtap-w1', '1 hour'), 1::bigint, 'setup: w1 leads with epoch 1, for an hour');
SELECT is(jobq.maintain('pgtap-w1', 1) ->> 'fenced', 'false', 'setup: its maintain acts');

SELECT is(jobq.demote_leader(), 2::bigint, 'demote_leader returns the new epoch, 2');
SELECT results_eq($$ SELECT holder, epoch, lease_expires_at <= now() FROM jobq.leader $$,
                  $$ VALUES (NULL::text, 2::bigint, true) $$, 'nobody leads; epoch 2; the lease is expired');
SELECT is(jobq.maintain('pgtap-w1', 1) ->> 'fenced', 'true', 'the demoted leader''s fenced maintain is refused at once');
SELECT results_eq($$ SELECT action, actor, detail ->> 'holder', (detail ->> 'epoch')::bigint, (detail ->> 'new_epoch')::bigint
                    FROM jobq.audit_log WHERE action = 'demote_leader' $$,
                  $$ VALUES ('demote_leader'::text, session_user::text COLLATE "default", 'pgtap-w1'::text, 1::bigint, 2::bigint) $$,
                  'audited as demote_leader with the old holder and both epochs, actor session_user');
SELECT is(jobq.acquire_leadership('pgtap-w2', '1 hour'), 3::bigint, 'another runner wins, with a newer epoch, 3');
SELECT is(jobq.maintain('pgtap-w2', 3) ->> 'fenced', 'false', 'and acts with it');

SELECT * FROM finish();
ROLLBACK;
