-- An enqueue that unique_for answers with an existing job writes nothing, and wakes no runner: the
-- first enqueue of the key notifies its queue, a second one within the window (asking for another
-- queue) notifies nothing. NOTIFY is delivered only at commit, so a second session (dblink, as
-- jobq sandbox has it) LISTENs on channel jobq, enqueues in two transactions, deletes what it
-- enqueued and commits. Without dblink or a loopback connection the test fails.
BEGIN;
SELECT plan(5);

-- A runner of these queues waits: this session holds their doorbells, so that the probe's
-- enqueues and wake-ups NOTIFY under the setting doorbell (true as installed).
SELECT ok(jobq.hold_doorbell(ARRAY['unique_probe_first', 'unique_probe_again']),
          'setup: this session holds the doorbells of the probe''s queues, as a waiting runner does');

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT FROM dblink_connect('unique_probe', jobq_test.loopback());

SELECT is(dblink_exec('unique_probe', 'LISTEN jobq'), 'LISTEN', 'setup: a second session listens on channel jobq');
SELECT is(dblink_exec('unique_probe', $$
    DO $probe$
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'unique-probe') THEN
            PERFORM jobq.define_task('unique-probe');
        END IF;
        PERFORM jobq.enqueue('unique-probe', queue => 'unique_probe_first', job_key => 'unique-probe', unique_for => '1 hour');
    END
    $probe$ $$), 'DO', 'setup: the second session enqueued the key in queue unique_probe_first');
SELECT is(dblink_exec('unique_probe', $$
    DO $probe$
    BEGIN
        PERFORM jobq.enqueue('unique-probe', queue => 'unique_probe_again', job_key => 'unique-probe', unique_for => '1 hour');
        PERFORM jobq.enqueue_many('[{"task": "unique-probe", "queue": "unique_probe_again", "job_key": "unique-probe",
                                     "unique_for": "1 hour"}]');
        DELETE FROM jobq.jobs WHERE task = 'unique-probe';
        DELETE FROM jobq.tasks WHERE name = 'unique-probe';
    END
    $probe$ $$), 'DO', 'setup: in a later transaction it enqueued the key again, asking for queue unique_probe_again');
SELECT bag_eq(
    $$ SELECT notify_name::text, extra FROM dblink_get_notify('unique_probe') $$,
    $$ VALUES ('jobq', 'unique_probe_first') $$,
    'the first enqueue notified its queue; the ones unique_for answered with the existing job notified nothing');

SELECT FROM dblink_disconnect('unique_probe');
DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['unique_probe_first', 'unique_probe_again']); END $$;
SELECT * FROM finish();
ROLLBACK;
