-- The functions runtime roles call are SECURITY DEFINER (they write tables the roles cannot);
-- private helpers (_-prefixed) and pure helpers run as the caller.
BEGIN;
SELECT plan(1);

SELECT set_eq(
    $$ SELECT p.proname::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'jobq' AND p.prosecdef $$,
    $$ VALUES ('enqueue'), ('enqueue_many'), ('claim_job'), ('heartbeat'), ('heartbeat_jobs'), ('complete_job'), ('complete_jobs'),
              ('fail_job'), ('fail_jobs'), ('snooze'), ('snooze_jobs'), ('queue_lag'), ('rescue_expired'), ('prune_history'), ('retry_job'), ('cancel_job'),
              ('delete_job'), ('requeue_dead'), ('set_setting') $$,
    'exactly the public API functions are SECURITY DEFINER; no _-prefixed helper is');

SELECT * FROM finish();
ROLLBACK;
