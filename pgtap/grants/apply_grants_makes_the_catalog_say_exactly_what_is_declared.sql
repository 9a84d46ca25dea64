-- jobq._apply_grants() is what 99_grants.sql runs after every other function file: whatever the
-- catalog says before (a grant given by hand, a grant revoked by hand, a function recreated with
-- PUBLIC's default EXECUTE), it leaves exactly the declared grants, and a declared function that
-- does not exist stops it rather than being skipped.
BEGIN;
SELECT plan(6);

-- Drift of three kinds, as a superuser or the owner could cause it.
GRANT EXECUTE ON FUNCTION jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[]) TO jobq_app;
REVOKE EXECUTE ON FUNCTION jobq.complete_job(bigint,uuid,jsonb) FROM worker_runtime;
GRANT EXECUTE ON FUNCTION jobq._pick_plain(text,smallint,timestamp with time zone,bigint,integer,timestamp with time zone,text[]) TO PUBLIC;
SELECT ok(has_function_privilege('jobq_app', 'jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[])', 'EXECUTE'),
          'the fixture: an application was granted the claim by hand');

SELECT cmp_ok(jobq._apply_grants(), '=', (SELECT count(*)::integer FROM jobq._function_grants()),
              'apply_grants grants every declared function');
SELECT ok(NOT has_function_privilege('jobq_app', 'jobq.claim_job(text,text[],integer,interval,integer[],timestamp with time zone[],bigint[],text[])', 'EXECUTE'),
          'a grant nobody declared is revoked');
SELECT ok(has_function_privilege('worker_runtime', 'jobq.complete_job(bigint,uuid,jsonb)', 'EXECUTE'),
          'a declared grant revoked by hand is given back');
SELECT ok(NOT has_function_privilege('jobq_viewer', 'jobq._pick_plain(text,smallint,timestamp with time zone,bigint,integer,timestamp with time zone,text[])', 'EXECUTE'),
          'PUBLIC''s EXECUTE on a private function is revoked');

-- A declared function that does not exist (its signature changed and its row did not).
CREATE OR REPLACE FUNCTION jobq._function_grants() RETURNS TABLE (fn text, roles text[]) LANGUAGE sql IMMUTABLE
AS $$ VALUES ('jobq.no_such_function(integer)', '{jobq_operator}'::text[]) $$;
SELECT throws_like('SELECT jobq._apply_grants()', '%no_such_function(integer)%does not exist%',
                   'a declared function that does not exist stops apply_grants');

SELECT * FROM finish();
ROLLBACK;
