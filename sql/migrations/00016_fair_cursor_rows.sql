-- A fair queue's turn (jobq.claim_cursors) is now inserted when fair claiming is turned on
-- (jobq.set_fair_claiming), and a claim only moves it: a claim that inserted it took the queue's
-- advisory lock out of the order in which jobq._lock_limited_queues takes them, and two claims
-- listing limited queues could deadlock (found by TestConcurrencyLimitsHoldUnder50Claimers with
-- a fair, store-limited queue among them). Fair queues turned on before this release that were
-- never claimed have no row: they get one here, starting after the system jobs' key.

-- +goose Up
INSERT INTO jobq.claim_cursors (queue, store_key)
SELECT q.name, '00000000-0000-0000-0000-000000000000'::uuid
FROM jobq.queues q
WHERE q.fair
ON CONFLICT (queue) DO NOTHING;

-- +goose Down
-- Nothing to undo: the rows are the ones the release before would have inserted at the queues'
-- first claims, and it reads them the same way.
SELECT 1;
