-- No jobq function carries PUBLIC's default EXECUTE: every ACL is explicit (a NULL proacl means
-- the default, which includes PUBLIC) and none of its entries is for PUBLIC (grantee 0).
BEGIN;
SELECT plan(2);

SELECT is_empty(
    $$ SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND p.proacl IS NULL $$,
    'every jobq function has an explicit ACL (none falls back to the default that grants PUBLIC)');
SELECT is_empty(
    $$ SELECT p.oid::regprocedure, a.privilege_type FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       CROSS JOIN LATERAL aclexplode(p.proacl) AS a
       WHERE n.nspname = 'jobq' AND a.grantee = 0 $$,
    'no jobq function grants anything to PUBLIC');

SELECT * FROM finish();
ROLLBACK;
