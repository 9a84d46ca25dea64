-- public.list_store_ids_for_fan_out runs as worker_fanout_owner (BYPASSRLS): a caller must not be
-- able to make it read or call anything but what it names. It pins search_path to pg_catalog,
-- pg_temp and names public.store in full, so a temporary table called store, or functions and
-- operators in public that shadow what it or the fan-out uses, change nothing - even with the
-- caller's search_path set to pg_temp, public.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.stores('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');

SELECT is((SELECT proconfig FROM pg_proc WHERE oid = 'public.list_store_ids_for_fan_out()'::regprocedure), ARRAY['search_path=pg_catalog, pg_temp'],
          'its configuration is exactly search_path=pg_catalog, pg_temp');
SELECT is((SELECT pg_get_userbyid(proowner)::text FROM pg_proc WHERE oid = 'public.list_store_ids_for_fan_out()'::regprocedure), 'worker_fanout_owner',
          'it is owned by worker_fanout_owner');
SELECT ok((SELECT prosecdef FROM pg_proc WHERE oid = 'public.list_store_ids_for_fan_out()'::regprocedure), 'it is SECURITY DEFINER');
SELECT set_eq(
    $$ SELECT a.grantee::regrole::text, a.privilege_type FROM pg_proc p CROSS JOIN LATERAL aclexplode(p.proacl) AS a
       WHERE p.oid = 'public.list_store_ids_for_fan_out()'::regprocedure $$,
    $$ VALUES ('worker_fanout_owner'::text, 'EXECUTE'::text), ('worker_runtime', 'EXECUTE') $$,
    'its ACL grants EXECUTE to worker_runtime and to its owner, and to nobody else (PUBLIC included; jobq.fan_out runs as jobq_migrator, a member of the owner)');
SELECT results_eq(
    $$ SELECT coalesce('search_path=pg_catalog, pg_temp' = ANY (proconfig), false) AS pinned, prosecdef
       FROM pg_proc WHERE oid = 'jobq.fan_out(text, jsonb, text, text, timestamptz)'::regprocedure $$,
    $$ VALUES (true, true) $$,
    'jobq.fan_out runs as its owner (SECURITY DEFINER) with search_path pinned to pg_catalog, pg_temp (beside jit = off)');

-- The attacker's objects: a temporary table named store holding a forged store (pg_temp is on the
-- pinned path, so only the qualified public.store keeps it out), and in public a logging "<" for
-- uuids and functions named like those the fan-out calls: replace, and unnest(uuid[]), which on a
-- path with public would beat pg_catalog's polymorphic unnest(anyarray) and forge a store.
CREATE TABLE public.pgtap_hijack_log (what text);
GRANT INSERT ON public.pgtap_hijack_log TO PUBLIC;
CREATE FUNCTION public.pgtap_evil_uuid_lt(uuid, uuid) RETURNS boolean LANGUAGE plpgsql AS
    $f$ BEGIN INSERT INTO public.pgtap_hijack_log VALUES ('<'); RETURN $1 > $2; END $f$;
CREATE OPERATOR public.< (LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = public.pgtap_evil_uuid_lt);
CREATE FUNCTION public.replace(text, text, text) RETURNS text LANGUAGE plpgsql AS
    $f$ BEGIN INSERT INTO public.pgtap_hijack_log VALUES ('replace'); RETURN 'hijacked'; END $f$;
CREATE FUNCTION public.unnest(uuid[]) RETURNS SETOF uuid LANGUAGE plpgsql AS
    $f$ BEGIN INSERT INTO public.pgtap_hijack_log VALUES ('unnest'); RETURN NEXT 'dddddddd-dddd-4ddd-8ddd-dddddddddddd'::uuid; END $f$;
GRANT EXECUTE ON FUNCTION public.pgtap_evil_uuid_lt(uuid, uuid), public.replace(text, text, text), public.unnest(uuid[]) TO PUBLIC;

SET LOCAL ROLE worker_runtime;
CREATE TEMP TABLE store (id uuid, name text);
INSERT INTO store VALUES ('dddddddd-dddd-4ddd-8ddd-dddddddddddd', 'forged');
SET LOCAL search_path = pg_temp, public;
SELECT is((SELECT count(*) FROM store), 1::bigint, 'setup: as worker_runtime, an unqualified "store" is now the forged temporary table');
SELECT results_eq($$ SELECT store_id FROM public.list_store_ids_for_fan_out() $$,
                  $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'::uuid), ('cccccccc-cccc-4ccc-8ccc-cccccccccccc'::uuid) $$,
                  'list_store_ids_for_fan_out still reads public.store, in uuid order, not the temporary table');
SELECT is(jobq.fan_out('pgtap-store-task', job_key_template => 'pgtap:{storeId}'), 3, 'fan_out still enqueues one job per real store');
RESET search_path;
RESET ROLE;
SELECT set_eq($$ SELECT store_id, job_key FROM jobq.jobs $$,
              $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid, 'pgtap:aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::text), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'pgtap:bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), ('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'pgtap:cccccccc-cccc-4ccc-8ccc-cccccccccccc') $$,
              'the jobs are for the real stores with their real keys');
SELECT is_empty($$ SELECT what FROM public.pgtap_hijack_log $$, 'none of the shadowing objects in public was called');

SELECT * FROM finish();
ROLLBACK;
