-- jobq_viewer holds no write privilege on any table or sequence of schema jobq, and a write
-- tried as it is denied.
BEGIN;
SELECT plan(5);

SELECT is_empty(
    $$ SELECT c.oid::regclass::text FROM pg_catalog.pg_class c
       WHERE c.relnamespace = 'jobq'::regnamespace AND c.relkind IN ('r', 'p')
         AND (pg_catalog.has_table_privilege('jobq_viewer', c.oid, 'INSERT')
              OR pg_catalog.has_table_privilege('jobq_viewer', c.oid, 'UPDATE')
              OR pg_catalog.has_table_privilege('jobq_viewer', c.oid, 'DELETE')
              OR pg_catalog.has_table_privilege('jobq_viewer', c.oid, 'TRUNCATE')
              OR pg_catalog.has_table_privilege('jobq_viewer', c.oid, 'REFERENCES')
              OR pg_catalog.has_table_privilege('jobq_viewer', c.oid, 'TRIGGER')) $$,
    'jobq_viewer may write no table of schema jobq');
SELECT is_empty(
    $$ SELECT c.oid::regclass::text FROM pg_catalog.pg_class c
       WHERE c.relnamespace = 'jobq'::regnamespace
         AND CASE WHEN c.relkind = 'S' THEN pg_catalog.has_sequence_privilege('jobq_viewer', c.oid, 'USAGE') END $$,
    'jobq_viewer may use no sequence of schema jobq');

SET LOCAL ROLE jobq_viewer;
SELECT throws_ok($$ UPDATE jobq.settings SET value = '1' WHERE name = 'default_max_attempts' $$, '42501', NULL,
                 'as jobq_viewer, UPDATE of jobq.settings is denied');
SELECT throws_ok($$ INSERT INTO jobq.audit_log (action) VALUES ('forged') $$, '42501', NULL,
                 'as jobq_viewer, forging an audit row is denied');
SELECT throws_ok($$ DELETE FROM jobq.job_history $$, '42501', NULL, 'as jobq_viewer, DELETE from jobq.job_history is denied');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
