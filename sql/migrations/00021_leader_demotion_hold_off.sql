-- A demoted leader took the leadership straight back (issue 29): jobq.demote_leader cleared the
-- holder and expired the lease, and the demoted runner's next renewal, up to leader_ttl / 3
-- later, won the free leadership with the next epoch, often before any other runner asked.
-- The leadership row now remembers whom the operator demoted and until when that worker is held
-- off (leader_ttl from the demotion); jobq._acquire_leadership refuses it until then, so another
-- runner, which asks every leader_ttl / 3, takes over. A demoted runner that is the only
-- candidate leads again after the hold-off, as a crashed leader is replaced after its lease.

-- +goose Up
ALTER TABLE jobq.leader
    ADD COLUMN demoted_holder text,
    ADD COLUMN demoted_until  timestamptz;
COMMENT ON COLUMN jobq.leader.demoted_holder IS 'The worker jobq.demote_leader last took the leadership from; NULL when the demotion found nobody leading.';
COMMENT ON COLUMN jobq.leader.demoted_until IS 'jobq.acquire_leadership refuses demoted_holder until then: the demotion''s now() + leader_ttl.';

-- +goose Down
ALTER TABLE jobq.leader
    DROP COLUMN demoted_until,
    DROP COLUMN demoted_holder;
