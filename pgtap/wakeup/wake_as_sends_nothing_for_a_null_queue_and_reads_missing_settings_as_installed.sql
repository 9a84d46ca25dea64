-- jobq._wake_as, the one sender of wake-ups, given the values of the settings wakeup and doorbell:
-- a NULL queue sends nothing and takes no lock; a NULL wakeup (the row missing) counts as notify
-- and a NULL doorbell as false, so a due job still notifies; with doorbell true and no runner
-- waiting it stays silent but holds the in-flight lock to the end of the transaction. Its return
-- value says whether it sent. (Nothing here commits, so no notification leaves the test.)
BEGIN;
SELECT plan(6);

SELECT is(jobq._wake_as(NULL, 'notify', true), false, 'a NULL queue sends nothing');
SELECT is((SELECT count(*)::int FROM pg_catalog.pg_locks
           WHERE locktype = 'advisory' AND pid = pg_catalog.pg_backend_pid() AND classid = 1785790465),
          0, 'and takes no lock');
SELECT is(jobq._wake_as('wake_as_probe', NULL, NULL), true,
          'a NULL wakeup and a NULL doorbell count as notify and false: the queue is notified');
SELECT is(jobq._wake_as('wake_as_probe', 'notify', NULL), true, 'a NULL doorbell alone counts as false');
SELECT is(jobq._wake_as('wake_as_probe', 'notify', true), false,
          'with the doorbell and no runner waiting it sends nothing');
SELECT is((SELECT count(*)::int FROM pg_catalog.pg_locks
           WHERE locktype = 'advisory' AND pid = pg_catalog.pg_backend_pid()
             AND classid = 1785790465 AND objid = pg_catalog.hashtext('wake_as_probe')::oid AND mode = 'ShareLock'),
          1, 'but holds the queue''s in-flight lock, shared, until the transaction ends (the doorbell is let go)');

SELECT * FROM finish();
ROLLBACK;
