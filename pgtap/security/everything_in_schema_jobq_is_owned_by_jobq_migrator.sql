-- jobq_migrator owns the schema and everything in it, with one exception by design: the seven
-- functions an application may call to write (enqueue, enqueue_many, retry_job, cancel_job,
-- create_batch, batch_enqueue, seal_batch) are owned by
-- jobq_app_gate, so that row-level security confines them to the caller's store.
BEGIN;
SELECT plan(6);

SELECT schema_owner_is('jobq', 'jobq_migrator', 'schema jobq is owned by jobq_migrator');
SELECT is_empty(
    $$ SELECT p.oid::regprocedure, pg_get_userbyid(p.proowner) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND pg_get_userbyid(p.proowner) <> 'jobq_migrator'
         AND p.oid NOT IN ('jobq.enqueue(text, jsonb, timestamptz, text, text, integer, integer, text, uuid, interval, interval, interval, interval, bigint[], text, text, text)'::regprocedure,
                           'jobq.enqueue_many(jsonb)'::regprocedure, 'jobq.retry_job(bigint)'::regprocedure, 'jobq.cancel_job(bigint)'::regprocedure,
                           'jobq.create_batch(jsonb,jsonb,jsonb,uuid,text,jsonb,boolean)'::regprocedure, 'jobq.batch_enqueue(bigint,jsonb)'::regprocedure,
                           'jobq.seal_batch(bigint)'::regprocedure) $$,
    'every jobq function, SECURITY DEFINER ones included, is owned by jobq_migrator, but the seven gate functions');
SELECT set_eq(
    $$ SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'jobq' AND pg_get_userbyid(p.proowner) = 'jobq_app_gate' $$,
    $$ VALUES ('jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval,bigint[],text,text,text)'),
              ('jobq.enqueue_many(jsonb)'), ('jobq.retry_job(bigint)'), ('jobq.cancel_job(bigint)'),
              ('jobq.create_batch(jsonb,jsonb,jsonb,uuid,text,jsonb,boolean)'), ('jobq.batch_enqueue(bigint,jsonb)'), ('jobq.seal_batch(bigint)') $$,
    'jobq_app_gate owns exactly enqueue, enqueue_many, retry_job, cancel_job, create_batch, batch_enqueue and seal_batch, and nothing else in jobq');
SELECT is_empty(
    $$ SELECT c.oid::regclass, pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'jobq' AND pg_get_userbyid(c.relowner) <> 'jobq_migrator' $$,
    'every jobq table, index and sequence is owned by jobq_migrator');
SELECT set_eq(
    $$ SELECT o.name, pg_get_userbyid(c.relowner)::text COLLATE "default" FROM unnest(ARRAY['jobq.schedules', 'jobq.schedule_runs', 'jobq.workers', 'jobq.leader']) AS o(name)
       LEFT JOIN pg_class c ON c.oid = to_regclass(o.name)
       UNION ALL SELECT 'jobq.cron_fields', pg_get_userbyid(t.typowner)::text COLLATE "default" FROM pg_type t WHERE t.oid = to_regtype('jobq.cron_fields') $$,
    $$ VALUES ('jobq.schedules'::text, 'jobq_migrator'::text), ('jobq.schedule_runs', 'jobq_migrator'), ('jobq.workers', 'jobq_migrator'),
              ('jobq.leader', 'jobq_migrator'), ('jobq.cron_fields', 'jobq_migrator') $$,
    'the scheduler''s tables (schedules, schedule_runs, workers, leader) and type (cron_fields) exist and are jobq_migrator''s');
SELECT is_empty(
    $$ SELECT t.oid::regtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
       WHERE n.nspname = 'jobq' AND pg_get_userbyid(t.typowner) <> 'jobq_migrator' $$,
    'every jobq type is owned by jobq_migrator');

SELECT * FROM finish();
ROLLBACK;
