package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/operator"
)

// The operator commands: thin calls of package operator (each one SQL function, docs/sql-api.md),
// the API the dashboard calls too, so that both show the same rows. Each connects once, as the
// login of --database-url, $JOBQ_DATABASE_URL or libpq's PG* variables.

// connFlags are the connection flags of the operator commands.
type connFlags struct {
	DatabaseURL string `name:"database-url" env:"JOBQ_DATABASE_URL" placeholder:"URL" help:"URL of a login that is a member of jobq_operator (default $$JOBQ_DATABASE_URL, then libpq's PG* variables)"`
}

// jsonFlag is --json of the read commands.
type jsonFlag struct {
	JSON bool `name:"json" help:"print JSON (stable snake_case field names, docs/cli.md) instead of a table"`
}

// connect opens the operator connection. An empty URL lets pgx read PGHOST, PGUSER and the rest.
func (c connFlags) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(c.DatabaseURL)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--database-url / JOBQ_DATABASE_URL: %v", err)}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", explain(err))
	}
	return conn, nil
}

// withConn runs fn on an operator connection and explains the database's errors.
func (c connFlags) withConn(ctx context.Context, fn func(*pgx.Conn) error) error {
	conn, err := c.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return explain(fn(conn))
}

// explain adds what an operator needs to know to a database error: a refused privilege names the
// role to log in with; a jobq error keeps its code and hint.
func explain(err error) error {
	var pg *pgconn.PgError
	if err == nil || !errors.As(err, &pg) {
		return err
	}
	if pg.Code == "42501" {
		return fmt.Errorf("%s (SQLSTATE 42501)\nhint: operator commands need a login that is a member of jobq_operator (--database-url or JOBQ_DATABASE_URL); GRANT jobq_operator TO <login> as a superuser", pg.Message)
	}
	jerr := jobq.FromDB(err)
	var je *jobq.Error
	if errors.As(jerr, &je) && je.Hint != "" {
		return fmt.Errorf("%w\nhint: %s", jerr, je.Hint)
	}
	return jerr
}

// limitFlag checks a --limit.
func checkLimit(n int) error {
	if n < 1 || n > 10000 {
		return usageError{fmt.Sprintf("--limit must be between 1 and 10000, got %d", n)}
	}
	return nil
}

// ---- jobs ----

type jobsCmd struct {
	List   jobsListCmd `cmd:"" help:"List jobs, live and finished, newest first."`
	Show   jobsShowCmd `cmd:"" help:"Show one job with its payload and last error."`
	Retry  jobsActCmd  `cmd:"" help:"Run a waiting job now, or queue a dead or canceled job again (jobq.retry_job)."`
	Cancel jobsActCmd  `cmd:"" help:"Cancel a job, also a running one (jobq.cancel_job)."`
	Delete jobsActCmd  `cmd:"" help:"Delete a job from the live table or the history (jobq.delete_job)."`
	Why    jobsWhyCmd  `cmd:"" help:"Say why a job waits: every rule that holds it now, or claimable (jobq.explain_job)."`
}

// jobFilter are the filters of jobs list and dead list.
type jobFilter struct {
	Queue string `help:"only this queue"`
	Task  string `help:"only this task"`
	Store string `help:"only this store id (uuid)"`
	Key   string `help:"only this job key"`
	Since string `help:"changed (or finished) since: a duration back from now (30m, 2h, 7d) or an RFC 3339 time"`
	Limit int    `default:"50" help:"at most this many jobs"`
}

// jobRow is one job in --json output: operator.Job, read by Operator.Jobs and Operator.Job.
type jobRow = operator.Job

// jobStates are the states a job can be in, live or finished.
var jobStates = []string{"queued", "running", "retry_pending", "blocked", "succeeded", "dead", "canceled"}

// uuidRE matches a uuid in its canonical text form.
var uuidRE = regexp.MustCompile(`^(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// listJobs reads the jobs matching the filters (Operator.Jobs) and prints them.
func listJobs(e *env, c connFlags, f jobFilter, state string, asJSON bool) error {
	if err := checkLimit(f.Limit); err != nil {
		return err
	}
	if f.Store != "" && !uuidRE.MatchString(f.Store) {
		return usageError{fmt.Sprintf("--store %q: want a store id (a uuid)", f.Store)}
	}
	if state != "" && !slices.Contains(jobStates, state) {
		return usageError{fmt.Sprintf("--state %q: want one of %s", state, strings.Join(jobStates, ", "))}
	}
	now := time.Now()
	since, err := parseSince(f.Since, now)
	if err != nil {
		return err
	}
	var jobs []jobRow
	err = c.withConn(e.ctx, func(conn *pgx.Conn) error {
		f := operator.JobFilter{Queue: f.Queue, Task: f.Task, State: state, StoreID: f.Store, Key: f.Key, Limit: f.Limit}
		if since != nil {
			f.Since = *since
		}
		var err error
		jobs, err = operator.New(conn).Jobs(e.ctx, f)
		return err
	})
	if err != nil {
		return err
	}
	if asJSON {
		if jobs == nil {
			jobs = []jobRow{}
		}
		return writeJSON(e.stdout, jobs)
	}
	table := make([][]string, 0, len(jobs))
	for _, j := range jobs {
		when := relTime(&j.RunAt, now)
		if j.FinishedAt != nil {
			when = relTime(j.FinishedAt, now)
		}
		table = append(table, []string{strconv.FormatInt(j.ID, 10), j.Queue, j.Task, j.State,
			fmt.Sprintf("%d/%d", j.Attempt, j.MaxAttempts), when, orDash(j.Key), truncate(orDash(j.LastError), 60)})
	}
	return writeTable(e.stdout, []string{"ID", "QUEUE", "TASK", "STATE", "ATTEMPT", "RUN/FINISHED", "KEY", "LAST ERROR"}, table)
}

type jobsListCmd struct {
	connFlags
	jsonFlag
	jobFilter
	State string `help:"only this state (queued, running, retry_pending, blocked, succeeded, dead, canceled)"`
}

func (c *jobsListCmd) Run(e *env) error {
	return listJobs(e, c.connFlags, c.jobFilter, c.State, c.JSON)
}

type jobsWhyCmd struct {
	connFlags
	jsonFlag
	ID int64 `arg:"" help:"job id"`
}

// Run prints one line per rule that holds the job (RULE  detail), or "claimable: ..." when none
// does; with --json, {"id", "claimable", "holds": [{"rule", "detail"}]}.
func (c *jobsWhyCmd) Run(e *env) error {
	var holds []operator.Hold
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		holds, err = operator.New(conn).ExplainJob(e.ctx, c.ID)
		if errors.Is(err, jobq.ErrNotFound) {
			return fmt.Errorf("job %d not found", c.ID)
		}
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, struct {
			ID        int64           `json:"id"`
			Claimable bool            `json:"claimable"`
			Holds     []operator.Hold `json:"holds"`
		}{c.ID, len(holds) == 0, append([]operator.Hold{}, holds...)})
	}
	if len(holds) == 0 {
		fmt.Fprintf(e.stdout, "claimable: nothing holds job %d; the next claim of its queue may take it\n", c.ID)
		return nil
	}
	for _, h := range holds {
		fmt.Fprintf(e.stdout, "%-17s %s\n", h.Rule, h.Detail)
	}
	return nil
}

type jobsShowCmd struct {
	connFlags
	jsonFlag
	ID int64 `arg:"" help:"job id"`
}

func (c *jobsShowCmd) Run(e *env) error {
	var job jobRow
	var batch *operator.Batch
	var result json.RawMessage
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		op := operator.New(conn)
		job, err = op.Job(e.ctx, c.ID)
		if errors.Is(err, jobq.ErrNotFound) {
			return fmt.Errorf("job %d not found", c.ID)
		}
		if err != nil {
			return err
		}
		if batch, err = op.BatchOfJob(e.ctx, c.ID); err != nil {
			return err
		}
		result, err = finishedResult(e.ctx, op, job)
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		// "attempts" is always present in show (an empty list when the job never failed); "batch"
		// and "result" are null when the job is in no batch or has no result.
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		return writeJSON(e.stdout, struct {
			jobRow
			Attempts []operator.Attempt `json:"attempts"`
			Batch    *operator.Batch    `json:"batch"`
			Result   json.RawMessage    `json:"result"`
		}{job, job.Attempts, batch, result})
	}
	now := time.Now()
	at := func(t time.Time) string { return t.UTC().Format(time.RFC3339) + " (" + relTime(&t, now) + ")" }
	finished := "-"
	if job.FinishedAt != nil {
		finished = at(*job.FinishedAt)
	}
	err = writeFields(e.stdout, [][2]string{
		{"id", strconv.FormatInt(job.ID, 10)}, {"task", job.Task}, {"queue", job.Queue}, {"state", job.State},
		{"store", orDash(job.StoreID)}, {"priority", strconv.Itoa(int(job.Priority))},
		{"attempt", fmt.Sprintf("%d of %d", job.Attempt, job.MaxAttempts)}, {"key", orDash(job.Key)},
		{"run at", at(job.RunAt)}, {"created", at(job.CreatedAt)}, {"updated", at(job.UpdatedAt)},
		{"finished", finished}, {"locked by", orDash(job.LockedBy)}, {"reason", orDash(job.Reason)},
		{"error code", orDash(job.ErrorCode)}, {"last error", orDash(job.LastError)}, {"payload", string(job.Payload)},
	})
	if err == nil && job.Last != nil {
		err = writeFields(e.stdout, lastAttemptFields(job.Last))
	}
	if err == nil && batch != nil {
		err = writeFields(e.stdout, [][2]string{{"batch", batchLine(batch)}})
	}
	if err == nil && len(result) > 0 {
		err = writeFields(e.stdout, [][2]string{{"result", resultText(result)}})
	}
	if err == nil && len(job.Workflow) > 0 {
		err = writeWorkflow(e, job.Workflow)
	}
	if err != nil || len(job.Attempts) == 0 {
		return err
	}
	// The failed attempts, oldest first, as a table under the fields.
	table := make([][]string, 0, len(job.Attempts))
	for _, a := range job.Attempts {
		table = append(table, []string{strconv.Itoa(int(a.Attempt)), orDash(a.Worker), relTime(a.StartedAt, now),
			relTime(&a.EndedAt, now), a.Reason, orDash(a.ErrorCode), numOrDash(a.ExitCode), truncate(orDash(a.Error), 60)})
	}
	fmt.Fprintln(e.stdout, "\nattempts:")
	return writeTable(e.stdout, []string{"ATTEMPT", "WORKER", "STARTED", "ENDED", "REASON", "CODE", "EXIT", "ERROR"}, table)
}

// resultShown is how many characters of a result jobs show prints; --json prints it whole.
const resultShown = 500

// finishedResult is the result a finished job's succeeded attempt returned (jobq.job_result), nil
// for a live job, a job without a result, or one pruned since it was read.
func finishedResult(ctx context.Context, op *operator.Operator, job jobRow) (json.RawMessage, error) {
	if job.FinishedAt == nil {
		return nil, nil
	}
	r, err := op.JobResult(ctx, job.ID)
	if errors.Is(err, jobq.ErrNotFound) || (err == nil && string(r.Result) == "null") {
		return nil, nil
	}
	return r.Result, err
}

// resultText is a result as jobs show prints it: on one line, cut at resultShown characters with
// its whole size said when longer.
func resultText(r json.RawMessage) string {
	s := strings.Join(strings.Fields(string(r)), " ")
	if len([]rune(s)) <= resultShown {
		return s
	}
	return truncate(s, resultShown) + fmt.Sprintf(" (%d bytes; --json prints it whole)", len(r))
}

// batchLine is a job's batch on one line: its id, state and counts (jobq.batch_list).
func batchLine(b *operator.Batch) string {
	return fmt.Sprintf("%d %s: %d of %d ended, %d succeeded, %d dead, %d canceled, %d pending", b.ID, b.State,
		b.Ended(), b.Total, b.Succeeded, b.Dead, b.Canceled, b.Pending)
}

// writeWorkflow prints a job's sequence as a field and its dependencies and dependents as a
// table (jobq.job_workflow; docs/dependencies.md).
func writeWorkflow(e *env, links []operator.WorkflowLink) error {
	var table [][]string
	for _, l := range links {
		if l.Relation == "sequence" {
			if err := writeFields(e.stdout, [][2]string{{"sequence", orDash(l.Detail)}}); err != nil {
				return err
			}
			continue
		}
		id := "-"
		if l.OtherID != nil {
			id = strconv.FormatInt(*l.OtherID, 10)
		}
		table = append(table, []string{l.Relation, id, orDash(l.State), orDash(l.Detail)})
	}
	if len(table) == 0 {
		return nil
	}
	fmt.Fprintln(e.stdout, "\nworkflow:")
	return writeTable(e.stdout, []string{"RELATION", "JOB", "STATE", "DETAIL"}, table)
}

// lastAttemptFields are the fields of what a job's running or last attempt keeps (issue 34):
// progress, output's tail, exit code, log reference, leader epoch and trace context, each shown
// only when there is one.
func lastAttemptFields(l *operator.LastAttempt) [][2]string {
	var f [][2]string
	if len(l.Progress) > 0 {
		f = append(f, [2]string{"progress", string(l.Progress)})
	}
	if l.ExitCode != nil {
		f = append(f, [2]string{"exit code", numOrDash(l.ExitCode)})
	}
	if l.Output != nil {
		f = append(f, [2]string{"output", truncate(*l.Output, 500)})
	}
	for _, x := range []struct {
		name string
		v    *string
	}{{"log ref", l.LogRef}, {"trace", l.Traceparent}} {
		if x.v != nil {
			f = append(f, [2]string{x.name, *x.v})
		}
	}
	if l.LeaderEpoch != nil {
		f = append(f, [2]string{"leader epoch", strconv.FormatInt(*l.LeaderEpoch, 10)})
	}
	return f
}

// numOrDash is a number, or "-" for none.
func numOrDash(n *int32) string {
	if n == nil {
		return "-"
	}
	return strconv.Itoa(int(*n))
}

// jobsActCmd is jobs retry, cancel and delete: one Operator call on one job.
type jobsActCmd struct {
	connFlags
	ID int64 `arg:"" help:"job id"`
}

func (c *jobsActCmd) Run(e *env, kctx *kong.Context) error {
	var result string
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		act := map[string]func(context.Context, int64) (string, error){"retry": operator.New(conn).RetryJob,
			"cancel": operator.New(conn).CancelJob, "delete": operator.New(conn).DeleteJob}[kctx.Selected().Name]
		var err error
		result, err = act(e.ctx, c.ID)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "job %d: %s\n", c.ID, result)
	return nil
}

// ---- dead ----

type deadCmd struct {
	List    deadListCmd    `cmd:"" help:"List dead jobs, newest first."`
	Requeue deadRequeueCmd `cmd:"" help:"Queue dead jobs again with attempt 0 (jobq.requeue_dead)."`
}

type deadListCmd struct {
	connFlags
	jsonFlag
	jobFilter
}

func (c *deadListCmd) Run(e *env) error { return listJobs(e, c.connFlags, c.jobFilter, "dead", c.JSON) }

type deadRequeueCmd struct {
	connFlags
	Task  string `help:"only dead jobs of this task"`
	Since string `help:"only jobs that died since: a duration back from now (30m, 2h, 7d) or an RFC 3339 time"`
	Limit int    `default:"1000" help:"at most this many jobs"`
}

func (c *deadRequeueCmd) Run(e *env) error {
	if err := checkLimit(c.Limit); err != nil {
		return err
	}
	since, err := parseSince(c.Since, time.Now())
	if err != nil {
		return err
	}
	opts := operator.RequeueDeadOptions{Task: c.Task, Max: c.Limit}
	if since != nil {
		opts.FinishedAfter = *since
	}
	var n int64
	err = c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		n, err = operator.New(conn).RequeueDead(e.ctx, opts)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "requeued %d dead job(s)\n", n)
	return nil
}

// ---- workers ----

type workersCmd struct {
	List   workersListCmd `cmd:"" help:"List the registered workers."`
	Drain  workerActCmd   `cmd:"" help:"Stop a worker's claims; its held jobs finish (jobq.drain_worker)."`
	Resume workerActCmd   `cmd:"" help:"Let a drained worker claim again (jobq.resume_worker)."`
	Detach workerActCmd   `cmd:"" help:"Stop a worker for good (jobq.detach_worker)."`
}

type workersListCmd struct {
	connFlags
	jsonFlag
	State string `help:"only this state (active, draining, detached, lost, stopped)"`
}

func (c *workersListCmd) Run(e *env) error {
	var ws []operator.Worker
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		ws, err = operator.New(conn).Workers(e.ctx, c.State)
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, ws)
	}
	now := time.Now()
	table := make([][]string, 0, len(ws))
	for _, w := range ws {
		pid := "-"
		if w.PID != nil {
			pid = strconv.Itoa(int(*w.PID))
		}
		tasks := strings.Join(w.Tasks, ",")
		switch {
		case w.Tasks == nil: // registered without a list: every task
			tasks = "*"
		case tasks == "":
			tasks = "-"
		}
		table = append(table, []string{w.ID, w.State, w.Node, pid, strings.Join(w.Queues, ","), tasks,
			fmt.Sprintf("%d/%d", w.Running, w.Concurrency), relTime(&w.HeartbeatAt, now), relTime(&w.StartedAt, now)})
	}
	return writeTable(e.stdout, []string{"ID", "STATE", "NODE", "PID", "QUEUES", "TASKS", "RUNNING", "HEARTBEAT", "STARTED"}, table)
}

type workerActCmd struct {
	connFlags
	ID string `arg:"" help:"worker id (jobq workers list)"`
}

func (c *workerActCmd) Run(e *env, kctx *kong.Context) error {
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		op := operator.New(conn)
		switch kctx.Selected().Name {
		case "drain":
			return op.DrainWorker(e.ctx, c.ID)
		case "resume":
			return op.ResumeWorker(e.ctx, c.ID)
		}
		_, err := op.DetachWorker(e.ctx, c.ID)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "worker %s: %s\n", c.ID, map[string]string{"drain": "draining", "resume": "active", "detach": "detached"}[kctx.Selected().Name])
	return nil
}

// ---- leader ----

type leaderCmd struct {
	Show   leaderShowCmd   `cmd:"" help:"Show the leader, its fencing epoch and its lease."`
	Demote leaderDemoteCmd `cmd:"" help:"Demote the leader: its epoch is fenced at once (jobq.demote_leader)."`
}

type leaderShowCmd struct {
	connFlags
	jsonFlag
}

func (c *leaderShowCmd) Run(e *env) error {
	var l operator.Leader
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		l, err = operator.New(conn).Leader(e.ctx)
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, l)
	}
	now := time.Now()
	holder := "none"
	switch {
	case l.Holder != nil && l.Held:
		holder = *l.Holder
	case l.Holder != nil:
		holder = *l.Holder + " (lease expired: no current leader)"
	}
	return writeFields(e.stdout, [][2]string{{"holder", holder}, {"epoch", strconv.FormatInt(l.Epoch, 10)},
		{"acquired", relTime(l.AcquiredAt, now)}, {"lease expires", relTime(l.LeaseExpiresAt, now)}})
}

// ---- schedules ----

type schedulesCmd struct {
	List   schedulesListCmd `cmd:"" help:"List the cron schedules and their next slots."`
	Pause  scheduleActCmd   `cmd:"" help:"Pause a schedule: no slot is enqueued until it is resumed (jobq.pause_schedule)."`
	Resume scheduleActCmd   `cmd:"" help:"Resume a paused schedule from its next slot after now (jobq.resume_schedule)."`
	Run    scheduleRunCmd   `cmd:"" help:"Enqueue one job of a schedule now (jobq.run_schedule_now)."`
}

type schedulesListCmd struct {
	connFlags
	jsonFlag
}

func (c *schedulesListCmd) Run(e *env) error {
	var ss []operator.Schedule
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		ss, err = operator.New(conn).Schedules(e.ctx)
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, ss)
	}
	now := time.Now()
	table := make([][]string, 0, len(ss))
	for _, s := range ss {
		enabled := "yes"
		if !s.Enabled {
			enabled = "no"
		}
		if s.PausedAt != nil {
			enabled = "paused " + relTime(s.PausedAt, now)
		}
		table = append(table, []string{s.Name, s.Cron, s.Timezone, s.Task, orDash(s.Queue), enabled,
			s.ConcurrencyPolicy, relTime(s.NextSlotAt, now), relTime(s.LastSlotAt, now)})
	}
	return writeTable(e.stdout, []string{"NAME", "CRON", "TZ", "TASK", "QUEUE", "ENABLED", "POLICY", "NEXT", "LAST"}, table)
}

// ---- settings ----

type settingsCmd struct {
	List settingsListCmd `cmd:"" help:"List every setting with its value."`
	Get  settingsGetCmd  `cmd:"" help:"Print one setting's value."`
	Set  settingsSetCmd  `cmd:"" help:"Change a setting (jobq.set_setting); runners apply it at their next heartbeat."`
}

func readSettings(e *env, c connFlags, name string) ([]operator.Setting, error) {
	var ss []operator.Setting
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		ss, err = operator.New(conn).Settings(e.ctx, name)
		return err
	})
	return ss, err
}

type settingsListCmd struct {
	connFlags
	jsonFlag
}

func (c *settingsListCmd) Run(e *env) error {
	ss, err := readSettings(e, c.connFlags, "")
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, ss)
	}
	now := time.Now()
	table := make([][]string, 0, len(ss))
	for _, s := range ss {
		table = append(table, []string{s.Name, s.Value, s.Kind, relTime(&s.UpdatedAt, now), truncate(s.Description, 70)})
	}
	return writeTable(e.stdout, []string{"NAME", "VALUE", "KIND", "UPDATED", "DESCRIPTION"}, table)
}

type settingsGetCmd struct {
	connFlags
	jsonFlag
	Name string `arg:"" help:"setting name (jobq settings list)"`
}

func (c *settingsGetCmd) Run(e *env) error {
	ss, err := readSettings(e, c.connFlags, c.Name)
	if err != nil {
		return err
	}
	if len(ss) == 0 {
		return fmt.Errorf("%s: no setting named %q (jobq settings list)", jobq.ErrUnknownSetting.Code, c.Name)
	}
	if c.JSON {
		return writeJSON(e.stdout, ss[0])
	}
	fmt.Fprintln(e.stdout, ss[0].Value)
	return nil
}

type settingsSetCmd struct {
	connFlags
	Name  string `arg:"" help:"setting name"`
	Value string `arg:"" help:"new value, in the setting's kind (interval, integer, boolean, text)"`
}

func (c *settingsSetCmd) Run(e *env) error {
	var result string
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		result, err = operator.New(conn).SetSetting(e.ctx, c.Name, c.Value)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s = %s\n", c.Name, result)
	return nil
}

// ---- audit ----

type auditCmd struct {
	connFlags
	jsonFlag
	Since string `help:"only entries since: a duration back from now (30m, 2h, 7d) or an RFC 3339 time"`
	Limit int    `default:"50" help:"at most this many entries, newest first"`
}

func (c *auditCmd) Run(e *env) error {
	if err := checkLimit(c.Limit); err != nil {
		return err
	}
	now := time.Now()
	since, err := parseSince(c.Since, now)
	if err != nil {
		return err
	}
	f := operator.AuditFilter{Limit: c.Limit}
	if since != nil {
		f.Since = *since
	}
	var as []operator.AuditEntry
	err = c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		as, err = operator.New(conn).Audit(e.ctx, f)
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, as)
	}
	table := make([][]string, 0, len(as))
	for _, a := range as {
		job := "-"
		if a.JobID != nil {
			job = strconv.FormatInt(*a.JobID, 10)
		}
		table = append(table, []string{strconv.FormatInt(a.ID, 10), relTime(&a.At, now), a.Actor, a.Action, job, truncate(string(a.Detail), 70)})
	}
	return writeTable(e.stdout, []string{"ID", "AT", "ACTOR", "ACTION", "JOB", "DETAIL"}, table)
}

// ---- version ----

type versionInfo struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	CommitAt  string `json:"commit_time"`
	Modified  bool   `json:"modified"`
	GoVersion string `json:"go_version"`
}

type versionCmd struct {
	jsonFlag
}

// The release stamp, set by make dist (-ldflags "-X main.releaseVersion=v1.2.3 -X
// main.releaseCommit=<sha>"); empty in any other build, which reports what the Go toolchain
// recorded instead. Constants of the build, never written at run time.
var (
	releaseVersion string
	releaseCommit  string
)

// buildVersion reads the release stamp of make dist, else the module version and VCS stamp the Go
// toolchain recorded in the binary.
func buildVersion() versionInfo {
	v := versionInfo{Version: "(devel)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module, v.GoVersion = bi.Main.Path, bi.GoVersion
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.CommitAt = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if releaseVersion != "" {
		v.Version = releaseVersion
	}
	if releaseCommit != "" {
		v.Commit, v.Modified = releaseCommit, false
	}
	return v
}

// versionLine is the one line jobq --version prints: jobq VERSION (COMMIT).
func versionLine() string {
	v := buildVersion()
	commit := v.Commit
	if commit == "" {
		commit = "unknown"
	}
	if v.Modified {
		commit += ", modified"
	}
	return fmt.Sprintf("jobq %s (%s)", v.Version, commit)
}

func (c *versionCmd) Run(e *env) error {
	v := buildVersion()
	if c.JSON {
		return writeJSON(e.stdout, v)
	}
	commit := v.Commit
	if commit == "" {
		commit = "unknown"
	}
	if v.Modified {
		commit += " (modified)"
	}
	fmt.Fprintf(e.stdout, "jobq %s\ncommit %s\n%s\n", v.Version, commit, v.GoVersion)
	return nil
}
