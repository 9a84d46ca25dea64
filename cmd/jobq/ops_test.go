package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// opsBundle is a private database with jobs in every state, a login that is a member of
// jobq_operator and one that is not.
type opsBundle struct {
	db        *dbtest.DB
	admin     *pgx.Conn
	operator  string // login name, member of jobq_operator
	opURL     string
	nobodyURL string
	mail      int64 // queued in queue mail, key k-mail
	report    int64 // queued for tomorrow in queue reports
	dead      []int64
}

// loginRole creates a LOGIN role (cluster-wide, so uniquely named) and drops it when t ends.
func loginRole(t *testing.T, admin *pgx.Conn, prefix, membership string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%d", prefix, rand.IntN(1e9))
	_, err := admin.Exec(testCtx(t), "CREATE ROLE "+name+" LOGIN "+membership)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = admin.Exec(t.Context(), "DROP ROLE IF EXISTS "+name)
	})
	return name
}

func setupOps(t *testing.T) *opsBundle {
	t.Helper()
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	b := &opsBundle{db: db, admin: admin}
	b.operator = loginRole(t, admin, "cli_operator", "IN ROLE jobq_operator")
	b.opURL = db.URL(b.operator)
	b.nobodyURL = db.URL(loginRole(t, admin, "cli_nobody", ""))
	ctx := testCtx(t)
	_, err := admin.Exec(ctx, `SELECT jobq_test.tasks('send-mail', 'report', 'crash')`)
	require.NoError(t, err)
	require.NoError(t, admin.QueryRow(ctx, `SELECT jobq.enqueue('send-mail', '{"to": "ann"}', queue => 'mail', job_key => 'k-mail')`).Scan(&b.mail))
	require.NoError(t, admin.QueryRow(ctx, `SELECT jobq.enqueue('report', run_at => now() + interval '1 day', queue => 'reports')`).Scan(&b.report))
	_, err = admin.Exec(ctx, `SELECT jobq.enqueue('crash', queue => 'crash') FROM generate_series(1, 2)`)
	require.NoError(t, err)
	rows, err := admin.Query(ctx, `WITH c AS (SELECT * FROM jobq.claim_job('w-setup', ARRAY['crash'], 2))
		SELECT f.job_id FROM jobq.fail_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c), NULL,
			retryable => ARRAY[false, false]) f WHERE f.outcome = 'dead' ORDER BY 1`)
	require.NoError(t, err)
	b.dead, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	require.Len(t, b.dead, 2, "setup: two dead jobs")
	return b
}

// op runs jobq as the operator login.
func (b *opsBundle) op(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCLI(t, append(args, "--database-url", b.opURL)...)
}

// opJSON runs a read command with --json as the operator, requires exit 0 and decodes stdout.
func opJSON[T any](t *testing.T, b *opsBundle, args ...string) T {
	t.Helper()
	code, stdout, stderr := b.op(t, append(args, "--json")...)
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	var v T
	require.NoError(t, json.Unmarshal([]byte(stdout), &v), "stdout:\n%s", stdout)
	return v
}

type jsonJob struct {
	ID          int64           `json:"id"`
	Task        string          `json:"task"`
	Queue       string          `json:"queue"`
	State       string          `json:"state"`
	Key         *string         `json:"key"`
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"max_attempts"`
	RunAt       string          `json:"run_at"`
	FinishedAt  *string         `json:"finished_at"`
	Payload     json.RawMessage `json:"payload"`
}

func ids(jobs []jsonJob) []int64 {
	out := []int64{}
	for _, j := range jobs {
		out = append(out, j.ID)
	}
	return out
}

// Listing, showing and filtering jobs, live and dead, as tables and as JSON.
func TestCLIJobsRead(t *testing.T) {
	t.Parallel()
	b := setupOps(t)

	t.Run("ListTable", func(t *testing.T) {
		code, stdout, stderr := b.op(t, "jobs", "list")
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		require.Len(t, lines, 5, "a header and four jobs:\n%s", stdout)
		require.Regexp(t, `^ID\s+QUEUE\s+TASK\s+STATE\s+ATTEMPT\s+RUN/FINISHED\s+KEY\s+LAST ERROR$`, lines[0])
		col := strings.Index(lines[0], "STATE")
		for _, l := range lines[1:] {
			require.Regexp(t, `^(queued|dead)\s`, l[col:], "the STATE column is aligned:\n%s", stdout)
		}
		require.Contains(t, stdout, "in 23h", "the report runs tomorrow")
		require.Contains(t, stdout, "k-mail")
	})
	t.Run("ListJSONNewestFirst", func(t *testing.T) {
		jobs := opJSON[[]jsonJob](t, b, "jobs", "list")
		require.Equal(t, []int64{b.dead[1], b.dead[0], b.report, b.mail}, ids(jobs))
		require.Equal(t, "dead", jobs[0].State)
		require.NotNil(t, jobs[0].FinishedAt)
		require.Nil(t, jobs[3].FinishedAt)
		require.JSONEq(t, `{"to": "ann"}`, string(jobs[3].Payload))
	})
	t.Run("Filters", func(t *testing.T) {
		require.Equal(t, []int64{b.mail}, ids(opJSON[[]jsonJob](t, b, "jobs", "list", "--queue", "mail")))
		require.Equal(t, []int64{b.report}, ids(opJSON[[]jsonJob](t, b, "jobs", "list", "--task", "report")))
		require.Equal(t, []int64{b.mail}, ids(opJSON[[]jsonJob](t, b, "jobs", "list", "--key", "k-mail")))
		require.Equal(t, []int64{b.dead[1], b.dead[0]}, ids(opJSON[[]jsonJob](t, b, "jobs", "list", "--state", "dead")))
		require.Equal(t, []int64{b.dead[1]}, ids(opJSON[[]jsonJob](t, b, "jobs", "list", "--limit", "1")))
		require.Len(t, opJSON[[]jsonJob](t, b, "jobs", "list", "--since", "1h"), 4)
		require.Empty(t, opJSON[[]jsonJob](t, b, "jobs", "list", "--since", "2999-01-01T00:00:00Z"))
		require.Empty(t, opJSON[[]jsonJob](t, b, "jobs", "list", "--store", "00000000-0000-0000-0000-000000000001"))
	})
	t.Run("BadFilterIsAUsageError", func(t *testing.T) {
		code, _, stderr := b.op(t, "jobs", "list", "--since", "yesterday")
		require.Equal(t, 2, code)
		require.Contains(t, stderr, `--since "yesterday"`)
		code, _, stderr = b.op(t, "jobs", "list", "--limit", "0")
		require.Equal(t, 2, code)
		require.Contains(t, stderr, "--limit must be between 1 and 10000")
	})
	t.Run("Show", func(t *testing.T) {
		j := opJSON[jsonJob](t, b, "jobs", "show", strconv.FormatInt(b.mail, 10))
		require.Equal(t, b.mail, j.ID)
		require.Equal(t, "send-mail", j.Task)
		require.Equal(t, "k-mail", *j.Key)
		require.Nil(t, j.FinishedAt)
		code, stdout, _ := b.op(t, "jobs", "show", strconv.FormatInt(b.dead[0], 10))
		require.Equal(t, 0, code)
		require.Regexp(t, `(?m)^state\s+dead$`, stdout)
		require.Regexp(t, `(?m)^attempt\s+1 of `, stdout)
		require.Regexp(t, `(?m)^attempts:\nATTEMPT\s+WORKER\s+STARTED\s+ENDED\s+REASON\s+CODE\s+EXIT\s+ERROR$`, stdout)
		// An age reads "now" or, on a slow machine, "1s ago": one or two words each.
		require.Regexp(t, `(?m)^1\s+w-setup\s+(now|\S+ ago)\s+(now|\S+ ago)\s+not_retryable\s+-\s+-\s+-$`, stdout, "the failed attempt, as a row")
	})
	t.Run("ShowAttemptsJSON", func(t *testing.T) {
		type attempts struct {
			Attempts []struct {
				Attempt   int     `json:"attempt"`
				Worker    *string `json:"worker"`
				StartedAt *string `json:"started_at"`
				EndedAt   string  `json:"ended_at"`
				Reason    string  `json:"reason"`
			} `json:"attempts"`
		}
		dead := opJSON[attempts](t, b, "jobs", "show", strconv.FormatInt(b.dead[0], 10))
		require.Len(t, dead.Attempts, 1)
		require.Equal(t, 1, dead.Attempts[0].Attempt)
		require.Equal(t, "w-setup", *dead.Attempts[0].Worker)
		require.Equal(t, "not_retryable", dead.Attempts[0].Reason)
		require.NotNil(t, dead.Attempts[0].StartedAt)
		code, stdout, stderr := b.op(t, "jobs", "show", strconv.FormatInt(b.mail, 10), "--json")
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		require.Contains(t, stdout, `"attempts": []`, "a job that never failed shows an empty list")
		code, stdout, _ = b.op(t, "jobs", "show", strconv.FormatInt(b.mail, 10))
		require.Equal(t, 0, code)
		require.NotContains(t, stdout, "attempts:", "no attempts table for a job that never failed")
	})
	t.Run("ShowMissingExitsOne", func(t *testing.T) {
		code, stdout, stderr := b.op(t, "jobs", "show", "999999")
		require.Equal(t, 1, code)
		require.Empty(t, stdout)
		require.Contains(t, stderr, "job 999999 not found")
	})
	t.Run("DeadList", func(t *testing.T) {
		jobs := opJSON[[]jsonJob](t, b, "dead", "list", "--task", "crash")
		require.Equal(t, []int64{b.dead[1], b.dead[0]}, ids(jobs))
		require.Empty(t, opJSON[[]jsonJob](t, b, "dead", "list", "--queue", "mail"))
	})
}

// The acts: retry, cancel, delete, requeue; each is audited with the operator's login.
func TestCLIJobsAct(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	state := func(t *testing.T, id int64) string {
		var s string
		err := b.admin.QueryRow(testCtx(t), `SELECT coalesce((SELECT state FROM jobq.jobs WHERE id = $1),
			(SELECT state FROM jobq.job_history WHERE id = $1), 'gone')`, id).Scan(&s)
		require.NoError(t, err)
		return s
	}

	code, stdout, stderr := b.op(t, "jobs", "retry", strconv.FormatInt(b.dead[0], 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Equal(t, fmt.Sprintf("job %d: queued\n", b.dead[0]), stdout)
	require.Equal(t, "queued", state(t, b.dead[0]))

	code, stdout, _ = b.op(t, "dead", "requeue", "--task", "crash", "--since", "1h")
	require.Equal(t, 0, code)
	require.Equal(t, "requeued 1 dead job(s)\n", stdout)
	require.Equal(t, "queued", state(t, b.dead[1]))

	code, stdout, _ = b.op(t, "jobs", "cancel", strconv.FormatInt(b.report, 10))
	require.Equal(t, 0, code)
	require.Equal(t, fmt.Sprintf("job %d: canceled\n", b.report), stdout)
	require.Equal(t, "canceled", state(t, b.report))

	code, _, stderr = b.op(t, "jobs", "delete", strconv.FormatInt(b.mail, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Equal(t, "gone", state(t, b.mail))

	t.Run("AnEngineErrorExitsOneWithItsCode", func(t *testing.T) {
		code, stdout, stderr := b.op(t, "jobs", "retry", "999999")
		require.Equal(t, 1, code)
		require.Empty(t, stdout)
		require.Contains(t, stderr, "JOB.NOT_FOUND")
	})

	t.Run("AuditReadsTheActs", func(t *testing.T) {
		type entry struct {
			ID     int64           `json:"id"`
			At     string          `json:"at"`
			Actor  string          `json:"actor"`
			Action string          `json:"action"`
			JobID  *int64          `json:"job_id"`
			Detail json.RawMessage `json:"detail"`
		}
		entries := opJSON[[]entry](t, b, "audit")
		var actions []string
		for _, e := range entries {
			require.Equal(t, b.operator, e.Actor)
			actions = append(actions, e.Action)
		}
		require.Equal(t, []string{"delete_job", "cancel_job", "requeue_dead", "retry_job"}, actions, "newest first")
		require.Len(t, opJSON[[]entry](t, b, "audit", "--limit", "2"), 2)
		require.Empty(t, opJSON[[]entry](t, b, "audit", "--since", "2999-01-01T00:00:00Z"))
		code, stdout, _ := b.op(t, "audit")
		require.Equal(t, 0, code)
		require.Regexp(t, `(?m)^ID\s+AT\s+ACTOR\s+ACTION\s+JOB\s+DETAIL$`, stdout)
		require.Regexp(t, `(?m)^\d+\s+(now|\d+s ago)\s+`+b.operator+`\s+retry_job\s+`+strconv.FormatInt(b.dead[0], 10)+`\s+\{"previous_state": "dead"\}$`, stdout)
	})
}

// Workers, the leader, schedules and settings.
func TestCLIWorkersLeaderSchedulesSettings(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := testCtx(t)
	_, err := b.admin.Exec(ctx, `SELECT jobq.register_worker('w-1', 'node-a', 4242, ARRAY['mail', 'default'], 8, 'v1')`)
	require.NoError(t, err)
	_, err = b.admin.Exec(ctx, `SELECT jobq.schedule('nightly-report', '0 3 * * *', 'report', timezone => 'Europe/Paris')`)
	require.NoError(t, err)

	t.Run("Workers", func(t *testing.T) {
		type worker struct {
			ID          string   `json:"id"`
			Node        string   `json:"node"`
			PID         *int     `json:"pid"`
			Queues      []string `json:"queues"`
			Concurrency int      `json:"concurrency"`
			State       string   `json:"state"`
			HeartbeatAt string   `json:"heartbeat_at"`
		}
		ws := opJSON[[]worker](t, b, "workers", "list")
		require.Len(t, ws, 1)
		require.Equal(t, "w-1", ws[0].ID)
		require.Equal(t, []string{"mail", "default"}, ws[0].Queues)
		require.Equal(t, "active", ws[0].State)
		for _, act := range [][2]string{{"drain", "draining"}, {"resume", "active"}, {"detach", "detached"}} {
			verb, want := act[0], act[1]
			code, stdout, stderr := b.op(t, "workers", verb, "w-1")
			require.Equal(t, 0, code, "stderr:\n%s", stderr)
			require.Equal(t, "worker w-1: "+want+"\n", stdout)
			require.Equal(t, want, opJSON[[]worker](t, b, "workers", "list", "--state", want)[0].State)
		}
		code, stdout, _ := b.op(t, "workers", "list")
		require.Equal(t, 0, code)
		require.Regexp(t, `(?m)^w-1\s+detached\s+node-a\s+4242\s+mail,default\s+\*\s+0/8\s+(now|\d+s ago)\s+(now|\d+s ago)$`, stdout,
			"a worker registered without a list of tasks serves every task: *")
		_, err := b.admin.Exec(ctx, `SELECT jobq.register_worker('w-2', 'node-b', 7, ARRAY['mail'], 2, 'v2', ARRAY['send-mail', 'report'])`)
		require.NoError(t, err)
		code, stdout, _ = b.op(t, "workers", "list", "--state", "active")
		require.Equal(t, 0, code)
		require.Regexp(t, `(?m)^w-2\s+active\s+node-b\s+7\s+mail\s+report,send-mail\s+0/2\s+`, stdout, "the tasks it serves, as registered (sorted)")
		type tasks struct {
			ID    string   `json:"id"`
			Tasks []string `json:"tasks"`
		}
		for _, w := range opJSON[[]tasks](t, b, "workers", "list") {
			switch w.ID {
			case "w-1":
				require.Nil(t, w.Tasks, "null: every task")
			case "w-2":
				require.Equal(t, []string{"report", "send-mail"}, w.Tasks)
			}
		}
		code, _, stderr := b.op(t, "workers", "drain", "nope")
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "JOB.UNKNOWN_WORKER")
	})
	t.Run("Leader", func(t *testing.T) {
		type leader struct {
			Holder *string `json:"holder"`
			Epoch  int64   `json:"epoch"`
			Held   bool    `json:"held"`
		}
		l := opJSON[leader](t, b, "leader", "show")
		require.False(t, l.Held)
		_, err := b.admin.Exec(ctx, `SELECT jobq.register_worker('w-lead', 'node-b', 1, ARRAY['default'], 1)`)
		require.NoError(t, err)
		_, err = b.admin.Exec(ctx, `SELECT jobq.acquire_leadership('w-lead', interval '1 minute')`)
		require.NoError(t, err)
		l = opJSON[leader](t, b, "leader", "show")
		require.True(t, l.Held)
		require.Equal(t, "w-lead", *l.Holder)
		require.Positive(t, l.Epoch)
		code, stdout, _ := b.op(t, "leader", "show")
		require.Equal(t, 0, code)
		require.Regexp(t, `(?m)^lease expires\s+in \d+s$`, stdout)
	})
	t.Run("Schedules", func(t *testing.T) {
		type schedule struct {
			Name       string  `json:"name"`
			Cron       string  `json:"cron"`
			Timezone   string  `json:"timezone"`
			Enabled    bool    `json:"enabled"`
			NextSlotAt *string `json:"next_slot_at"`
		}
		ss := opJSON[[]schedule](t, b, "schedules", "list")
		require.Len(t, ss, 1)
		require.Equal(t, schedule{Name: "nightly-report", Cron: "0 3 * * *", Timezone: "Europe/Paris", Enabled: true, NextSlotAt: ss[0].NextSlotAt}, ss[0])
		code, stdout, _ := b.op(t, "schedules", "list")
		require.Equal(t, 0, code)
		require.Regexp(t, `(?m)^nightly-report\s+0 3 \* \* \*\s+Europe/Paris\s+report`, stdout)
	})
	t.Run("Settings", func(t *testing.T) {
		type setting struct {
			Name  string `json:"name"`
			Kind  string `json:"kind"`
			Value string `json:"value"`
		}
		all := opJSON[[]setting](t, b, "settings", "list")
		require.Contains(t, all, setting{Name: "poll_interval", Kind: "interval", Value: "1 second"})
		code, stdout, _ := b.op(t, "settings", "get", "poll_interval")
		require.Equal(t, 0, code)
		require.Equal(t, "1 second\n", stdout)
		code, stdout, stderr := b.op(t, "settings", "set", "poll_interval", "2 seconds")
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		require.Contains(t, stdout, "poll_interval = ")
		require.Equal(t, setting{Name: "poll_interval", Kind: "interval", Value: "00:00:02"}.Name,
			opJSON[setting](t, b, "settings", "get", "poll_interval").Name)
		require.NotEqual(t, "1 second", opJSON[setting](t, b, "settings", "get", "poll_interval").Value)
		code, _, stderr = b.op(t, "settings", "get", "no_such_setting")
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "JOB.UNKNOWN_SETTING")
		code, _, stderr = b.op(t, "settings", "set", "no_such_setting", "1")
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "JOB.UNKNOWN_SETTING")
	})
}

// A login that is not a member of jobq_operator gets the database's permission error, exit 1 and
// a hint naming the role, on reads and on acts.
func TestCLIRefusesANonOperator(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	for _, args := range [][]string{
		{"jobs", "list"}, {"jobs", "show", "1"}, {"dead", "list"}, {"workers", "list"}, {"leader", "show"},
		{"schedules", "list"}, {"audit"}, {"queues", "list"},
		{"jobs", "retry", strconv.FormatInt(b.dead[0], 10)}, {"jobs", "cancel", "1"}, {"jobs", "delete", "1"},
		{"dead", "requeue"}, {"workers", "drain", "w"}, {"settings", "set", "poll_interval", "5 seconds"},
		{"queues", "pause", "mail"}, {"schedules", "pause", "s"}, {"schedules", "run", "s"}, {"leader", "demote"},
		{"stats"},
	} {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(args, "--database-url", b.nobodyURL)...)
			require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			require.Empty(t, stdout)
			require.Contains(t, stderr, "permission denied")
			require.Contains(t, stderr, "SQLSTATE 42501")
			require.Contains(t, stderr, "member of jobq_operator")
		})
	}
	var n int
	require.NoError(t, b.admin.QueryRow(testCtx(t), "SELECT count(*) FROM jobq.audit_log").Scan(&n))
	require.Zero(t, n, "nothing was done")
}

// Without --database-url the operator commands read JOBQ_DATABASE_URL, then libpq's PG*
// variables. (t.Setenv: this test cannot run in parallel.)
func TestCLIConnectionFromEnvironment(t *testing.T) {
	b := setupOps(t)
	u, err := url.Parse(b.opURL)
	require.NoError(t, err)

	t.Setenv("JOBQ_DATABASE_URL", b.opURL)
	code, stdout, stderr := runCLI(t, "settings", "get", "poll_interval")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Equal(t, "1 second\n", stdout)

	t.Setenv("JOBQ_DATABASE_URL", "")
	t.Setenv("PGHOST", u.Hostname())
	t.Setenv("PGPORT", u.Port())
	t.Setenv("PGUSER", b.operator)
	t.Setenv("PGDATABASE", b.db.Name)
	code, stdout, stderr = runCLI(t, "jobs", "list", "--json")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	var jobs []jsonJob
	require.NoError(t, json.Unmarshal([]byte(stdout), &jobs))
	require.Len(t, jobs, 4)
}

// migrate validate exits 0 on an up-to-date schema and 1 while a function file is pending.
func TestCLIMigrateValidate(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	code, stdout, stderr := runCLI(t, "migrate", "validate", "--database-url", b.db.URL("jobq_migrator"))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Equal(t, "jobq migrate: the schema is up to date\n", stdout)

	_, err := b.admin.Exec(testCtx(t), "UPDATE jobq.function_files SET checksum = encode(sha256('stale'), 'hex') WHERE name = '60_operator.sql'")
	require.NoError(t, err)
	code, stdout, stderr = runCLI(t, "migrate", "validate", "--database-url", b.db.URL("jobq_migrator"))
	require.Equal(t, 1, code, "stdout:\n%s", stdout)
	require.Equal(t, "pending functions/60_operator.sql\npending functions/99_grants.sql\n", stdout,
		"a changed file is pending, and the grants file with it")
	require.Contains(t, stderr, "0 migration(s) and 2 function file(s) pending")
}

// jobq version prints the module and, with --json, stable fields.
func TestCLIVersion(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, "version")
	require.Equal(t, 0, code)
	require.Regexp(t, `^jobq \S+\ncommit \S+`, stdout)
	code, stdout, _ = runCLI(t, "version", "--json")
	require.Equal(t, 0, code)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &v))
	require.Equal(t, "github.com/jobqdev/jobq", v["module"])
	for _, k := range []string{"version", "commit", "commit_time", "modified", "go_version"} {
		require.Contains(t, v, k)
	}
}

// -h, --help and jobq help CMD exit 0 on every command and print its usage to stdout.
func TestCLIHelpOnEveryCommand(t *testing.T) {
	t.Parallel()
	k, err := newParser(&cli{}, nil, nil)
	require.NoError(t, err)
	var paths [][]string
	var walk func(n *kong.Node, path []string)
	walk = func(n *kong.Node, path []string) {
		for _, c := range n.Children {
			if c.Type != kong.CommandNode {
				continue
			}
			p := append(append([]string{}, path...), c.Name)
			paths = append(paths, p)
			walk(c, p)
		}
	}
	walk(k.Model.Node, nil)
	require.Greater(t, len(paths), 25)
	for _, p := range paths {
		name := strings.Join(p, " ")
		for _, args := range [][]string{append(p, "-h"), append(p, "--help"), append([]string{"help"}, p...)} {
			t.Run(strings.Join(args, "_"), func(t *testing.T) {
				code, stdout, stderr := runCLI(t, args...)
				require.Equal(t, 0, code, "stderr:\n%s", stderr)
				switch p[0] {
				case "worker", "sandbox": // their own parsers print their help
					require.Contains(t, stdout+stderr, "usage: jobq "+name)
				default:
					require.Contains(t, stdout, "usage: jobq "+name)
				}
			})
		}
	}
}

// The operator's controls through the CLI: a paused queue is listed as paused and no claim takes
// its job until it is resumed; a schedule pauses, resumes and runs now; the leader is demoted; each
// act is audited with the operator's login as actor.
func TestCLIQueueScheduleAndLeaderControls(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := testCtx(t)
	claim := func() int {
		var n int
		require.NoError(t, b.admin.QueryRow(ctx, `SELECT count(*) FROM jobq.claim_job('w-cli', ARRAY['mail'], 10)`).Scan(&n))
		return n
	}
	code, stdout, stderr := b.op(t, "queues", "pause", "mail")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Equal(t, "queue mail: paused\n", stdout)
	code, stdout, _ = b.op(t, "queues", "pause", "mail")
	require.Equal(t, 0, code)
	require.Equal(t, "queue mail: already paused\n", stdout, "pausing twice changes nothing")
	qs := opJSON[[]struct {
		Queue  string `json:"queue"`
		Paused bool   `json:"paused"`
		Queued int64  `json:"queued"`
	}](t, b, "queues", "list")
	var mail *struct {
		Queue  string `json:"queue"`
		Paused bool   `json:"paused"`
		Queued int64  `json:"queued"`
	}
	for i := range qs {
		if qs[i].Queue == "mail" {
			mail = &qs[i]
		}
	}
	require.NotNil(t, mail, "queues list shows the mail queue: %v", qs)
	require.True(t, mail.Paused)
	require.EqualValues(t, 1, mail.Queued)
	require.Zero(t, claim(), "no claim takes a paused queue's job")

	code, stdout, _ = b.op(t, "queues", "resume", "mail")
	require.Equal(t, 0, code)
	require.Equal(t, "queue mail: active\n", stdout)
	require.Equal(t, 1, claim(), "a resumed queue's job is claimed at once")

	_, err := b.admin.Exec(ctx, `SELECT jobq.schedule('cli-nightly', '0 3 * * *', 'report')`)
	require.NoError(t, err)
	code, stdout, _ = b.op(t, "schedules", "pause", "cli-nightly")
	require.Equal(t, 0, code)
	require.Equal(t, "schedule cli-nightly: paused\n", stdout)
	code, stdout, _ = b.op(t, "schedules", "list")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "paused")
	code, stdout, _ = b.op(t, "schedules", "resume", "cli-nightly")
	require.Equal(t, 0, code)
	require.Equal(t, "schedule cli-nightly: active\n", stdout)
	code, stdout, stderr = b.op(t, "schedules", "run", "cli-nightly")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `^schedule cli-nightly: enqueued job \d+\n$`, stdout)
	code, _, stderr = b.op(t, "schedules", "run", "cli-no-such")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "JOB.UNKNOWN_SCHEDULE")

	var before int64
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT epoch FROM jobq.leader`).Scan(&before))
	code, stdout, _ = b.op(t, "leader", "demote")
	require.Equal(t, 0, code)
	require.Equal(t, fmt.Sprintf("leader demoted: epoch is now %d; a runner leads again when it wins the next election\n", before+1), stdout)

	var actors []string
	rows, err := b.admin.Query(ctx, `SELECT action || ' ' || actor FROM jobq.audit_log
		WHERE action IN ('pause_queue', 'resume_queue', 'pause_schedule', 'resume_schedule', 'run_schedule_now', 'demote_leader') ORDER BY id`)
	require.NoError(t, err)
	actors, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Len(t, actors, 6, "each act that changed something is audited once: %v", actors)
	for _, a := range actors {
		require.True(t, strings.HasSuffix(a, " "+b.operator), "audited as the operator's login: %s", a)
	}

}

// jobq stats prints jobq.stats() per queue: the fixture's waiting, scheduled and dead jobs are
// counted where they are, in a table and in JSON.
func TestCLIStats(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	type row struct {
		Queue        string   `json:"queue"`
		StoreID      *string  `json:"store_id"`
		Queued       int64    `json:"queued"`
		Scheduled    int64    `json:"scheduled"`
		DeadLastDay  int64    `json:"dead_last_day"`
		OldestDueAge *float64 `json:"oldest_due_age_seconds"`
	}
	rows := opJSON[[]row](t, b, "stats")
	byQueue := map[string]row{}
	for _, r := range rows {
		byQueue[r.Queue] = r
		require.Nil(t, r.StoreID, "an operator's rows aggregate every store")
	}
	require.EqualValues(t, 1, byQueue["mail"].Queued, "mail: its one waiting job")
	require.NotNil(t, byQueue["mail"].OldestDueAge)
	require.EqualValues(t, 1, byQueue["reports"].Scheduled, "reports: the job due tomorrow")
	require.Nil(t, byQueue["reports"].OldestDueAge, "nothing is due in reports")
	require.EqualValues(t, 2, byQueue["crash"].DeadLastDay, "crash: the two dead jobs")

	one := opJSON[[]row](t, b, "stats", "--queue", "crash")
	require.Len(t, one, 1)
	require.Equal(t, "crash", one[0].Queue)

	code, stdout, stderr := b.op(t, "stats")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Contains(t, stdout, "QUEUE")
	require.Contains(t, stdout, "mail")
}
