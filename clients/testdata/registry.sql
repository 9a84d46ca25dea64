-- The registry the committed client modules are generated from (clients/typescript/src/tasks.ts,
-- clients/python/jobq_client/tasks.py): seed 000's Phase 1 task catalogue (§5.2, §12), the README's
-- send-welcome-email, ping, and two tasks that use every contract type, optional keys, keys that
-- are reserved words or no identifier, and a store task whose contract does not name storeId.
-- The tests regenerate the modules from a database holding exactly these tasks and diff them.

-- System schedulers: no store id; they fan out to the store tasks.
SELECT jobq.define_task('expire-tentative-reservations', 'system', '{"reason": "string"}');
SELECT jobq.define_task('aggregate-daily-sales', 'system', '{"targetDate": "date", "reason": "string"}');
SELECT jobq.define_task('cleanup-deleted-customers', 'system', '{"reason": "string"}');
SELECT jobq.define_task('cleanup-expired-operator-sessions', 'system', '{"reason": "string"}');
SELECT jobq.define_task('cleanup-expired-operator-invitations', 'system', '{"reason": "string"}');
SELECT jobq.define_task('purge-deleted-customer-notes', 'system', '{"reason": "string"}');

-- Store tasks: storeId required.
SELECT jobq.define_task('expire-tentative-for-store', 'store', '{"storeId": "uuid"}', max_attempts => 10,
                        description => 'Expires the tentative reservations of one store.');
SELECT jobq.define_task('aggregate-daily-sales-for-store', 'store', '{"storeId": "uuid", "targetDate": "date"}', max_attempts => 25);
SELECT jobq.define_task('cleanup-deleted-customers-for-store', 'store', '{"storeId": "uuid", "cutoffIso": "timestamp"}');
SELECT jobq.define_task('purge-deleted-customer-notes-for-store', 'store', '{"storeId": "uuid", "cutoffIso": "timestamp"}');
SELECT jobq.define_task('send-operator-invitation-email', 'store', '{"storeId": "uuid", "invitationId": "string"}', queue => 'mail');

-- The README's task, and the built-in ping (applications may enqueue it).
SELECT jobq.define_task('send-welcome-email', 'store', '{"storeId": "uuid", "userId": "integer"}');
SELECT jobq.define_task('ping', app_enqueue => true);

-- Every contract type; optional keys; keys that are reserved words (class, from) or no identifier.
SELECT jobq.define_task('import-catalog-v2', 'system', '{
    "file": "string", "rows": "integer", "ratio?": "number", "dryRun?": "boolean", "options?": "object",
    "tags?": "array", "extra?": "any", "batchId?": "uuid", "day?": "date", "notBefore?": "timestamp",
    "class?": "string", "from?": "string", "content-type?": "string"}', app_enqueue => true,
    description => 'Imports a catalog file; exercises every contract type.');
-- A store task whose contract does not name storeId: the store comes from the storeId option.
SELECT jobq.define_task('rebuild-search-index', 'store', '{"full?": "boolean"}');
