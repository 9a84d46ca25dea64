package salon_test

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/examples/salon"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/internal/proctest"
	"github.com/jobqdev/jobq/runner"
)

// salonCmd runs `salon args...` with env (over a clean environment) and returns its exit status
// and output.
func salonCmd(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(salonBinary(t), args...)
	cmd.Env = append(proctest.CleanEnv(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if err != nil {
		exitErr, ok := err.(*exec.ExitError)
		require.True(t, ok, "run salon: %v", err)
		code = exitErr.ExitCode()
	}
	return code, out.String()
}

// installedCluster starts a private cluster with an empty database "salon" and installs it with
// the salon binary, as the Compose migrate service does: bootstrap as the superuser, then
// migrate as jobq_migrator.
func installedCluster(t *testing.T) *localpg.Cluster {
	t.Helper()
	c := dbtest.StartCluster(t)
	dbtest.CreateDatabase(t, c, "salon")
	code, out := salonCmd(t, []string{"DATABASE_URL_ADMIN=" + c.URL("postgres", "salon")}, "bootstrap")
	require.Equal(t, 0, code, out)
	code, out = salonCmd(t, []string{"DATABASE_URL_MIGRATOR=" + c.URL("jobq_migrator", "salon")}, "migrate")
	require.Equal(t, 0, code, out)
	return c
}

// GWT-4. Given an empty database, when bootstrap and then migrate run, then the jobq schema
// exists with every migration applied, the salon's tables follow, and running both again
// changes nothing.
func TestGWT04MigrateCreatesTheSchemaOnAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	c := installedCluster(t)
	conn := dbtest.Connect(t, c.URL("postgres", "salon"))
	ctx := context.Background()
	var owner string
	require.NoError(t, conn.QueryRow(ctx, `SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'jobq'`).Scan(&owner))
	require.Equal(t, "jobq_migrator", owner, "the migrator owns the jobq schema")
	var missing int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM unnest(ARRAY['jobq.jobs', 'jobq.job_history', 'jobq.tasks', 'jobq.schedules',
		'public.customer', 'public.operator_invitation', 'public.invitation_email_delivery']) AS t(name) WHERE to_regclass(name) IS NULL`).Scan(&missing))
	require.Zero(t, missing)
	before := dbtest.DumpSchema(t, c.URL("postgres", "salon"))

	code, out := salonCmd(t, []string{"DATABASE_URL_ADMIN=" + c.URL("postgres", "salon")}, "bootstrap")
	require.Equal(t, 0, code, out)
	code, out = salonCmd(t, []string{"DATABASE_URL_MIGRATOR=" + c.URL("jobq_migrator", "salon")}, "migrate")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "applied 0 jobq and 0 salon migrations")
	dbtest.RequireSameSchema(t, before, dbtest.DumpSchema(t, c.URL("postgres", "salon")), "a second install")
}

// GWT-3. Given a running salon worker, when its database stops, then /healthz stays 200 and
// /readyz turns 503 (WORKER.NOT_READY); when the database is back, /readyz is 200 again without
// a restart.
func TestGWT03HealthzStaysUpAndReadyzFailsWhenTheDatabaseIsDown(t *testing.T) {
	t.Parallel()
	c := installedCluster(t)
	w := proctest.StartServing(t, salonBinary(t), []string{"WORKER_DATABASE_URL=" + c.URL("worker_runtime", "salon")}, "worker")
	proctest.WaitUntil(t, time.Minute, "/readyz 200", func() bool { code, _ := w.Get("/readyz"); return code == 200 })

	ctx := context.Background()
	require.NoError(t, c.Stop(ctx))
	var body string
	proctest.WaitUntil(t, time.Minute, "/readyz 503", func() bool {
		var code int
		code, body = w.Get("/readyz")
		return code == 503
	})
	require.Contains(t, body, "WORKER.NOT_READY")
	code, _ := w.Get("/healthz")
	require.Equal(t, 200, code, "alive without the database")

	require.NoError(t, c.Start(ctx))
	proctest.WaitUntil(t, time.Minute, "/readyz 200 again", func() bool { code, _ := w.Get("/readyz"); return code == 200 })
	select {
	case <-w.Done:
		t.Fatal("the worker exited; it should have recovered in place")
	default:
	}
}

// GWT-10. Given an invitation mail whose SMTP server keeps answering 451, when its job has used
// its attempts, then exactly one Sentry event is sent, naming the task, the store and the
// attempt; the retries before it send none. The job that talks to the SMTP server is the mail's
// delivery job (deliver-operator-invitation-email, enqueued by send-operator-invitation-email
// when it records the mail), which gets the attempts the mail job was given.
func TestGWT10ExhaustedRetriesSendExactlyOneSentryEvent(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	store := d.stores(t, 1)[0]
	sink := startSink(t)
	sink.RejectRecipient("bounce@example.com")
	sentry := proctest.NewSentry(t)
	w := proctest.StartServing(t, salonBinary(t), []string{"WORKER_DATABASE_URL=" + d.URL("worker_runtime"),
		"SMTP_ADDR=" + sink.Addr(), "SENTRY_DSN=" + sentry.DSN()}, "worker", "--no-leader")
	w.WaitStarted()

	invite(t, d, store, "bounce@example.com", 3)
	var id int64
	proctest.WaitUntil(t, time.Minute, "the mail's delivery job died", func() bool {
		return d.admin.QueryRow(context.Background(), `SELECT h.id FROM jobq.job_history h
			JOIN public.invitation_email_delivery m ON m.to_address = 'bounce@example.com' AND h.payload ->> 'invitationId' = m.invitation_id::text
			WHERE h.task = 'deliver-operator-invitation-email' AND h.state = 'dead'`).Scan(&id) == nil
	})
	require.Equal(t, 3, sink.Refused(), "three attempts reached the SMTP server")
	w.Signal(syscall.SIGTERM) // the worker flushes Sentry before it exits
	require.Equal(t, 0, w.Wait(30*time.Second))

	events := sentry.Received()
	require.Len(t, events, 1, "exactly one event")
	tags := events[0]["tags"].(map[string]any)
	require.Equal(t, "deliver-operator-invitation-email", tags["taskName"])
	require.Equal(t, store, tags["storeId"])
	require.Equal(t, "3", tags["attempt"])
	require.Equal(t, strconv.FormatInt(id, 10), tags["jobId"])
}

// GWT-11. Given the migrator's URL, or a superuser's, as WORKER_DATABASE_URL, when the salon
// worker starts, then it refuses to run (WORKER.UNSAFE_ROLE, exit 1); given only
// DATABASE_URL_MIGRATOR, it does not fall back to it (exit 2); given worker_runtime's URL, every
// connection it opens is worker_runtime's.
func TestGWT11WorkerConnectsAsWorkerRuntimeOnly(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	for _, role := range []string{"jobq_migrator", "postgres"} {
		code, out := salonCmd(t, []string{"WORKER_DATABASE_URL=" + d.URL(role)}, "worker", "--health-addr", "")
		require.Equal(t, 1, code, out)
		require.Contains(t, out, "WORKER.UNSAFE_ROLE")
	}
	code, out := salonCmd(t, []string{"DATABASE_URL_MIGRATOR=" + d.URL("jobq_migrator")}, "worker", "--health-addr", "")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "WORKER_DATABASE_URL")

	w := proctest.StartServing(t, salonBinary(t), []string{"WORKER_DATABASE_URL=" + d.URL("worker_runtime"),
		"DATABASE_URL_MIGRATOR=" + d.URL("jobq_migrator")}, "worker")
	w.WaitStarted()
	proctest.WaitUntil(t, time.Minute, "the worker's pool and listener connected", func() bool {
		return d.count(t, `SELECT count(DISTINCT application_name) FROM pg_stat_activity
			WHERE datname = current_database() AND application_name IN ('salon-worker', $1)`, runner.ListenerApplicationName) == 2
	})
	roles := queryStrings(t, d.admin, `SELECT DISTINCT usename::text FROM pg_stat_activity
		WHERE datname = current_database() AND application_name IN ('salon-worker', $1)`, runner.ListenerApplicationName)
	require.Equal(t, []string{"worker_runtime"}, roles, "every connection of the worker logs in as worker_runtime")
	require.Zero(t, d.count(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND usename = 'jobq_migrator'`),
		"nothing connects with the migrator's URL, though the worker's environment has it")
}

// GWT-12. Given a running salon worker, when ping is enqueued from plain SQL, then it is picked
// up and succeeds.
func TestGWT12PingIsPickedUp(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	w := proctest.StartServing(t, salonBinary(t), []string{"WORKER_DATABASE_URL=" + d.URL("worker_runtime")}, "worker", "--no-leader")
	w.WaitStarted()
	var id int64
	require.NoError(t, d.admin.QueryRow(context.Background(), `SELECT jobq.enqueue('ping')`).Scan(&id))
	proctest.WaitUntil(t, time.Minute, "ping succeeded", func() bool {
		return d.count(t, `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND state = 'succeeded'`, id) == 1
	})
	require.Len(t, w.Lines("pong"), 1)
}

// invite inserts an invitation as the API does (salon_api, one tenant transaction with its mail
// job) and returns the job's id. maxAttempts 0 keeps the task's; retries are fast.
func invite(t *testing.T, d *salonDB, store, email string, maxAttempts int) int64 {
	t.Helper()
	var id int64
	err := runner.WithTenant(context.Background(), d.api, store, func(ctx context.Context, tx pgx.Tx) error {
		var inv string
		if err := tx.QueryRow(ctx, `INSERT INTO public.operator_invitation (email, expires_at) VALUES ($1, now() + interval '7 days') RETURNING id::text`, email).Scan(&inv); err != nil {
			return err
		}
		var err error
		id, err = salon.SendOperatorInvitationEmailTask.Enqueue(ctx, tx, store, salon.SendOperatorInvitationEmail{InvitationID: inv},
			&jobq.EnqueueOptions{MaxAttempts: maxAttempts, JobKey: salon.InvitationEmailKey(inv), BackoffBase: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond})
		return err
	})
	require.NoError(t, err)
	return id
}
