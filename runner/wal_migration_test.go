package runner_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/migrate"
	jobqsql "github.com/jobqdev/jobq/sql"
)

// bodyIn returns the body (prosrc: what stands between AS $$ and $$;) of the function an embedded migration file
// creates with the statement that starts with create.
func bodyIn(t *testing.T, file, create string) string {
	t.Helper()
	rest := migrationFrom(t, file, create)
	from := strings.Index(rest, "AS $$") + len("AS $$")
	to := strings.Index(rest, "\n$$;")
	require.Greater(t, to, from)
	return rest[from : to+1]
}

// commentIn returns the SQL of the string literal of the COMMENT statement of an embedded
// migration file that starts with comment (up to its IS).
func commentIn(t *testing.T, file, comment string) string {
	t.Helper()
	rest := migrationFrom(t, file, comment)[len(comment):]
	return rest[:strings.Index(rest, ";\n")]
}

// migrationFrom returns an embedded migration file from the first occurrence of start on.
func migrationFrom(t *testing.T, file, start string) string {
	t.Helper()
	b, err := fs.ReadFile(jobqsql.Migrations, file)
	require.NoError(t, err)
	i := strings.Index(string(b), start)
	require.GreaterOrEqual(t, i, 0, "%s holds %q", file, start)
	return string(b)[i:]
}

// Rolling back 00018_wakeup puts back, character for character, the bodies and comments that
// enqueue's insert (jobq._insert_specs, 00003's body under 00009's name), jobq.set_setting,
// jobq._revive, jobq.retry_job (00007) and jobq.snooze_jobs (00005) had, and removes jobq._wake,
// the setting and the publication; applying it again brings the wake-up modes back.
func TestWakeupMigrationDownRestoresThePreviousFunctions(t *testing.T) {
	t.Parallel()
	ctx := dbtest.Ctx(t)
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	m, err := migrate.Open(ctx, db.URL("jobq_migrator"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })

	for {
		r, err := m.Down(ctx)
		require.False(t, errors.Is(err, goose.ErrNoNextVersion), "00018 was never rolled back")
		require.NoError(t, err)
		if r.Source.Version == 18 {
			break
		}
	}

	insertBody := bodyIn(t, "00003_enqueue.sql", "CREATE FUNCTION jobq._enqueue(")
	insertComment := commentIn(t, "00009_tasks.sql", "COMMENT ON FUNCTION jobq._insert_specs(jobq.job_spec[], boolean) IS")
	setBody := bodyIn(t, "00007_operator.sql", "CREATE FUNCTION jobq.set_setting(")
	setComment := commentIn(t, "00007_operator.sql", "COMMENT ON FUNCTION jobq.set_setting(text, text) IS")

	reviveComment := commentIn(t, "00007_operator.sql", "COMMENT ON FUNCTION jobq._revive(bigint[], text) IS")
	retryComment := commentIn(t, "00007_operator.sql", "COMMENT ON FUNCTION jobq.retry_job(bigint) IS")
	snoozeComment := commentIn(t, "00005_finish.sql", "COMMENT ON FUNCTION jobq.snooze_jobs(bigint[], uuid[], interval) IS")
	for _, c := range []struct{ fn, body, commentSQL string }{
		{"jobq._insert_specs(jobq.job_spec[], boolean)", insertBody, insertComment},
		{"jobq.set_setting(text, text)", setBody, setComment},
		{"jobq._revive(bigint[], text)", bodyIn(t, "00007_operator.sql", "CREATE FUNCTION jobq._revive("), reviveComment},
		{"jobq.retry_job(bigint)", bodyIn(t, "00007_operator.sql", "CREATE FUNCTION jobq.retry_job("), retryComment},
		{"jobq.snooze_jobs(bigint[], uuid[], interval)", bodyIn(t, "00005_finish.sql", "CREATE FUNCTION jobq.snooze_jobs("), snoozeComment},
	} {
		var src, comment, want string
		require.NoError(t, admin.QueryRow(ctx, `SELECT prosrc, obj_description(oid, 'pg_proc') FROM pg_proc WHERE oid = $1::regprocedure`,
			c.fn).Scan(&src, &comment))
		require.Equal(t, c.body, src, "%s has its previous body again", c.fn)
		require.NoError(t, admin.QueryRow(ctx, "SELECT "+c.commentSQL).Scan(&want))
		require.Equal(t, want, comment, "%s has its previous comment again", c.fn)
	}
	require.NotContains(t, insertBody, "wakeup")
	require.Zero(t, queryInt(t, admin, `SELECT count(*) FROM jobq.settings WHERE name = 'wakeup'`), "the setting is gone")
	require.Zero(t, queryInt(t, admin, `SELECT count(*) FROM pg_publication WHERE pubname = 'jobq_wakeup'`), "the publication is gone")
	require.Zero(t, queryInt(t, admin, `SELECT count(*) FROM pg_proc WHERE proname = '_wake' AND pronamespace = 'jobq'::regnamespace`),
		"jobq._wake is gone")
	require.Equal(t, "jobq_app_gate", queryText(t, admin, `SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE oid = 'jobq.retry_job(bigint)'::regprocedure`),
		"retry_job still belongs to the gate")

	_, err = m.Up(ctx)
	require.NoError(t, err)
	var src string
	require.NoError(t, admin.QueryRow(ctx, `SELECT prosrc FROM pg_proc WHERE oid = 'jobq._insert_specs(jobq.job_spec[], boolean)'::regprocedure`).Scan(&src))
	require.Contains(t, src, "pg_logical_emit_message(true, 'jobq', q.queue)")
	require.Equal(t, 1, queryInt(t, admin, `SELECT count(*) FROM pg_publication WHERE pubname = 'jobq_wakeup'`))
	require.NoError(t, admin.QueryRow(ctx, `SELECT prosrc FROM pg_proc WHERE oid = 'jobq.retry_job(bigint)'::regprocedure`).Scan(&src))
	require.Contains(t, src, "jobq._wake(v_queue)")
	require.Equal(t, "jobq_app_gate", queryText(t, admin, `SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE oid = 'jobq.retry_job(bigint)'::regprocedure`),
		"CREATE OR REPLACE keeps retry_job's owner")
}

// queryText runs a query returning one text value.
func queryText(t *testing.T, conn *pgx.Conn, sql string) string {
	t.Helper()
	var s string
	require.NoError(t, conn.QueryRow(context.Background(), sql).Scan(&s))
	return s
}

// queryInt runs a query returning one integer.
func queryInt(t *testing.T, conn *pgx.Conn, sql string) int {
	t.Helper()
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), sql).Scan(&n))
	return n
}
