-- The settings runners and the leader apply: worker_heartbeat_interval (default 5 seconds),
-- worker_timeout (30 seconds), leader_ttl (15 seconds), maintain_interval (1 second) and
-- poll_interval (1 second), all intervals, each described. set_setting checks them like any
-- interval setting. (register_worker's test checks the defaults.)
BEGIN;
SELECT plan(4);

-- Nothing is changed before the checks: what is checked is what the migrations installed (or an
-- operator set since: the values are checked to be positive intervals, the defaults in the
-- comments of sql/00013). Rolled back at the end.
SELECT results_eq(
    $$ SELECT name, kind, value::interval > interval '0' FROM jobq.settings
       WHERE name IN ('worker_heartbeat_interval', 'worker_timeout', 'leader_ttl', 'maintain_interval', 'poll_interval') ORDER BY name $$,
    $$ VALUES ('leader_ttl'::text, 'interval'::text, true), ('maintain_interval', 'interval', true), ('poll_interval', 'interval', true),
              ('worker_heartbeat_interval', 'interval', true), ('worker_timeout', 'interval', true) $$,
    'the five runner settings exist, as intervals, each a positive one');
SELECT is_empty(
    $$ SELECT name FROM jobq.settings WHERE name IN ('worker_heartbeat_interval', 'worker_timeout', 'leader_ttl', 'maintain_interval', 'poll_interval')
         AND length(description) < 20 $$,
    'each says what it is for');
SELECT throws_ok($$ SELECT jobq.set_setting('worker_timeout', '0 seconds') $$, 'JQ204', NULL, 'set_setting refuses a zero worker_timeout');
SELECT throws_ok($$ SELECT jobq.set_setting('poll_interval', 'often') $$, 'JQ204', NULL, 'set_setting refuses a poll_interval that is not an interval');

SELECT * FROM finish();
ROLLBACK;
