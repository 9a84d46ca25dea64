-- Row security and grants are jobq.job_history's, checked on a query through it. A partition
-- queried by name would skip them, so no role but the owner has any privilege on one: not on the
-- days maintain makes, nor on the default partition (nor the history kept before migration
-- 00037: migrate's TestHistoryByDayMigrationKeepsTheHistoryBeforeIt). Each partition also forces
-- row security with its owner's policy alone, so a grant given by mistake shows nothing.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SELECT ok(jobq._history_add_span(now() + interval '50 days', 1), 'setup: a day made as jobq.maintain makes it');

SELECT is((SELECT count(*) FROM jobq._history_partitions()) >= 5, true,
          'setup: history has partitions (the default one, today''s, the next two days'', the one made here)');
SELECT is((SELECT array_agg(format('%s: %s', p.part, r.role) ORDER BY 1)
           FROM jobq._history_partitions() p, unnest(jobq._runtime_roles()) AS r(role)
           WHERE r.role <> (SELECT c.relowner::regrole::text FROM pg_catalog.pg_class c WHERE c.oid = p.part)
             AND pg_catalog.has_table_privilege(r.role, p.part, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')),
          NULL, 'no runtime role but the owner may read, write or truncate any partition directly');
SELECT is((SELECT array_agg(p.part::text ORDER BY 1)
           FROM jobq._history_partitions() p JOIN pg_catalog.pg_class c ON c.oid = p.part
           WHERE NOT (c.relrowsecurity AND c.relforcerowsecurity)
              OR (SELECT array_agg(pol.polname::text) FROM pg_catalog.pg_policy pol WHERE pol.polrelid = p.part) IS DISTINCT FROM ARRAY['job_history_owner']
              OR (SELECT array_agg(r::regrole::text) FROM pg_catalog.pg_policy pol, unnest(pol.polroles) r WHERE pol.polrelid = p.part)
                 IS DISTINCT FROM ARRAY[c.relowner::regrole::text]),
          NULL, 'every partition forces row security, with one policy, for its owner alone');

-- A grant given by mistake: the viewer reads the partition by name and sees nothing.
SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') $$, 'setup: a job');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1);
SELECT jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c));
CREATE TEMP TABLE part AS SELECT h.tableoid::regclass AS p FROM jobq.job_history h;
SELECT set_config('pgtap.part', (SELECT p::text FROM part), true);
DO $$ BEGIN EXECUTE format('GRANT SELECT ON %s TO jobq_viewer', current_setting('pgtap.part')); END $$;
CREATE FUNCTION pg_temp.rows_by_name() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
    EXECUTE format('SELECT count(*) FROM %s', current_setting('pgtap.part')) INTO n;
    RETURN n;
END $$;
SELECT is(pg_temp.rows_by_name(), 1::bigint, 'setup: the finished job is in that partition (read as the superuser)');
SET LOCAL ROLE jobq_viewer;
SELECT is(pg_temp.rows_by_name(), 0::bigint,
          'a viewer granted SELECT on a day partition by mistake reads none of its rows by name');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
