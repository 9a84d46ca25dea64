-- The columns a claim writes (jobq._claim's one update, and the generated ready it recomputes) are
-- read by no index of jobq.jobs, neither as a key, in an expression nor in a predicate; only
-- counted, which a claim of a limited queue sets, is. The catalog's word (pg_index: indkey, and
-- the columns of indexprs and indpred), for every index, so that a new index that breaks the HOT
-- claim fails here.
BEGIN;
SELECT plan(2);

CREATE TEMP TABLE indexed AS
SELECT DISTINCT i.indexrelid::regclass::text AS index, a.attname::text AS col
FROM pg_index i
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum > 0 AND NOT a.attisdropped
WHERE i.indrelid = 'jobq.jobs'::regclass
  AND (a.attnum = ANY (i.indkey::int2[])
       OR pg_get_expr(i.indexprs, i.indrelid) ~ ('\m' || a.attname || '\M')
       OR pg_get_expr(i.indpred, i.indrelid) ~ ('\m' || a.attname || '\M'));

SELECT is_empty(
    $$ SELECT index, col FROM indexed
       WHERE col IN ('state', 'attempt', 'locked_by', 'lease_token', 'claimed_at', 'heartbeat_at', 'lease_expires_at',
                     'deadline_at', 'updated_at') $$,
    'no index reads state, attempt, the lease columns or updated_at');
SELECT set_eq(
    $$ SELECT col FROM indexed WHERE col IN ('ready', 'counted', 'fair') $$,
    $$ VALUES ('ready'), ('counted'), ('fair') $$,
    'the claim and fair indexes read ready (which a claim leaves true), the limits'' index counted');

SELECT * FROM finish();
ROLLBACK;
