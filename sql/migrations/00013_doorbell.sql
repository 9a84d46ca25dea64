-- The doorbell (issue 17): with wakeup = notify, an enqueue NOTIFYs only when a runner of its queue
-- waits for work. The commit of every transaction that issued a NOTIFY takes one lock of the whole
-- database; at 8 and 32 connections 722 of 800 sampled active enqueuers waited on it
-- (docs/benchmarks.md). Runners of this release hold their queues' doorbells while they wait
-- (jobq.hold_doorbell); runners of earlier releases never do, so an enqueue would never wake them.
--
--   setting doorbell   boolean. true: NOTIFY only when a runner of the queue holds its doorbell;
--                      false: every due enqueue NOTIFYs, as before. Installed true when no runner
--                      is live (a new installation, or one upgraded with its runners stopped),
--                      false when one is (a rolling upgrade: those are runners of the release
--                      before, since this release's runners wait for the migrated schema); set it
--                      true with jobq.set_setting once every runner is of this release
--                      (docs/upgrading.md). It changes nothing under wakeup wal or both.

-- +goose Up
INSERT INTO jobq.settings (name, kind, value, description)
SELECT 'doorbell', 'boolean',
       CASE WHEN EXISTS (SELECT 1
                         FROM jobq.workers w
                         WHERE w.state IN ('active', 'draining')
                           AND w.heartbeat_at > now() - coalesce((SELECT s.value::interval FROM jobq.settings s
                                                                  WHERE s.name = 'worker_timeout'), interval '30 seconds'))
            THEN 'false' ELSE 'true' END,
       'With wakeup notify: true, an enqueue NOTIFYs only when a runner of the queue waits for work (holds its doorbell, as runners since the doorbell release do); false, every due enqueue NOTIFYs, as runners of earlier releases need. Set it true once every runner is of the doorbell release or later.';

-- +goose Down
DELETE FROM jobq.settings WHERE name = 'doorbell';
