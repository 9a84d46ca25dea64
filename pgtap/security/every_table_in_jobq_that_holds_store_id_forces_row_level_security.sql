-- Audit: tenant data is confined by row-level security. Every table of schema jobq with a store_id
-- column has it enabled and forced (so that not even the owner's functions escape their policies)
-- and at least one policy; so does public.store. A partition (of jobq.job_history: migration 00037)
-- is read and written through its parent, whose policies apply, so it is not listed by name; it
-- forces row security too, with its owner's policy alone, and no role but the owner may name it
-- (pgtap/job_history/no_role_but_the_owner_reaches_a_partition_directly.sql).
BEGIN;
SELECT plan(5);

SELECT set_eq(
    $$ SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'store_id' AND NOT a.attisdropped
       WHERE n.nspname = 'jobq' AND c.relkind IN ('r', 'p') AND NOT c.relispartition $$,
    $$ VALUES ('jobq.jobs'), ('jobq.job_history'), ('jobq.job_attempts'), ('jobq.store_bindings'), ('jobq.claim_starts'),
              ('jobq.batches'), ('jobq.job_dependencies'), ('jobq.sequence_holds') $$,
    'the jobq tables that hold store_id (partitions aside) are jobq.jobs, jobq.job_history, jobq.job_attempts, jobq.store_bindings, jobq.claim_starts, '
    'jobq.batches, jobq.job_dependencies and jobq.sequence_holds (a new one must be added to the policies and here)');
SELECT is_empty(
    $$ SELECT c.oid::regclass, c.relrowsecurity, c.relforcerowsecurity FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'store_id' AND NOT a.attisdropped
       WHERE n.nspname = 'jobq' AND c.relkind IN ('r', 'p') AND NOT (c.relrowsecurity AND c.relforcerowsecurity) $$,
    'every jobq table with a store_id has row-level security enabled and forced');
SELECT is_empty(
    $$ SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'store_id' AND NOT a.attisdropped
       WHERE n.nspname = 'jobq' AND c.relkind IN ('r', 'p') AND NOT EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid) $$,
    'and at least one policy');
SELECT is_empty(
    $$ SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'store_id' AND NOT a.attisdropped
       WHERE n.nspname = 'jobq' AND c.relkind IN ('v', 'm') $$,
    'no view in jobq exposes store_id around the policies');
SELECT results_eq(
    $$ SELECT relrowsecurity, relforcerowsecurity, EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid) FROM pg_class c WHERE c.oid = 'public.store'::regclass $$,
    $$ VALUES (true, true, true) $$,
    'public.store has row-level security enabled and forced, with a policy');

SELECT * FROM finish();
ROLLBACK;
