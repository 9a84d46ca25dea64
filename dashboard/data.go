package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
)

// pageSize is how many rows a list page shows; the next page starts after its last id (keyset
// pagination: no OFFSET walks a big table).
const pageSize = 50

// queueRow is a queue on the overview.
type queueRow struct {
	Name                                  string
	Due, Scheduled, RetryPending, Running int64
	DeadLastHour, SucceededLastHour       int64
	FailedLastHour                        int64
	OldestDue                             *time.Duration
	Minutes                               []minute // the last hour of this queue
	Paused                                bool
	PausedAt                              *time.Time
	PausedBy                              *string
	// Limits are the queue's flow controls (the limits column of jobq.queue_summary and
	// jobq.stats, as jobq.queue_states shows it); nil when it has none.
	Limits map[string]any
	// NotServed counts the waiting jobs whose task no live worker of the queue serves (they wait
	// for a worker with a handler for it); NotServedOldest is how long the oldest due one has
	// waited, nil when none is due.
	NotServed       int64
	NotServedOldest *time.Duration
}

// minute is one bar of the overview's chart.
type minute struct {
	At                      time.Time
	Succeeded, Failed, Dead int64
}

type overviewData struct {
	Queues    []queueRow
	Cap       int64 // a count above it means "more than Cap" (jobq.queue_summary)
	Estimated int64 // the planner's estimate of jobq.jobs' rows
	Live      int64 // the live jobs counted (exact unless Capped)
	Capped    bool  // some count stopped at Cap: Live is a floor, Estimated the better figure
	Minutes   []minute
	Totals    minute // the hour's sums
	Workers   map[string]int
	Leader    *leaderRow
	// NotServed sums the queues' jobs no live worker serves; NotServedOldest is the longest
	// wait of a due one among them (nil when none is due).
	NotServed       int64
	NotServedOldest *time.Duration
}

// newHour is 60 empty minutes from t0.
func newHour(t0 time.Time) []minute {
	ms := make([]minute, 60)
	for i := range ms {
		ms[i].At = t0.Add(time.Duration(i) * time.Minute)
	}
	return ms
}

type leaderRow struct {
	Holder   *string
	Epoch    int64
	Acquired *time.Time
	Expires  *time.Time
}

// overviewCap is where the overview's counts stop (jobq.queue_summary's cap).
const overviewCap = 10000

// loadOverview reads the queues with their flow controls (jobq.queue_summary: index-only counts
// that stop at overviewCap, for the fleet's view; jobq.stats for a store's staff, which counts
// their store only) and the
// last hour of finished jobs and failed attempts, by minute and by queue.
func loadOverview(ctx context.Context, q querier, fleet bool, now time.Time) (overviewData, error) {
	d := overviewData{Cap: overviewCap}
	byName := map[string]*queueRow{}
	var rows pgx.Rows
	var err error
	if fleet {
		rows, err = q.Query(ctx, `SELECT s.queue, s.due, s.scheduled, s.retry_pending, s.running,
				$2::timestamptz - s.oldest_due_at, s.paused, s.paused_at, s.paused_by, s.limits,
				s.not_served, $2::timestamptz - s.not_served_oldest_at
			FROM jobq.queue_summary($1) s`, overviewCap, now)
	} else {
		rows, err = q.Query(ctx, `SELECT s.queue, s.queued + s.retry_pending, s.scheduled, s.retry_pending, s.running,
				s.oldest_due_age, p.name IS NOT NULL, p.paused_at, p.paused_by, s.limits,
				s.not_served, s.not_served_oldest_age
			FROM jobq.stats() s LEFT JOIN jobq.queues p ON p.name = s.queue AND p.paused`)
	}
	if err != nil {
		return d, fmt.Errorf("queues: %w", err)
	}
	d.Queues, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (queueRow, error) {
		var x queueRow
		err := r.Scan(&x.Name, &x.Due, &x.Scheduled, &x.RetryPending, &x.Running, &x.OldestDue, &x.Paused, &x.PausedAt, &x.PausedBy, &x.Limits,
			&x.NotServed, &x.NotServedOldest)
		return x, err
	})
	if err != nil {
		return d, fmt.Errorf("queues: %w", err)
	}
	for i := range d.Queues {
		x := &d.Queues[i]
		byName[x.Name] = x
		d.Live += x.Due + x.Scheduled + x.Running
		d.Capped = d.Capped || x.Due > d.Cap || x.Scheduled > d.Cap || x.Running > d.Cap
		d.NotServed += x.NotServed
		if x.NotServedOldest != nil && (d.NotServedOldest == nil || *x.NotServedOldest > *d.NotServedOldest) {
			d.NotServedOldest = x.NotServedOldest
		}
	}
	// The planner's estimate counts every store's jobs: the fleet's view only. jobq.stats counts a
	// store's staff's jobs exactly, so their view is never capped.
	if fleet {
		if err := q.QueryRow(ctx, `SELECT greatest(c.reltuples, 0)::bigint FROM pg_catalog.pg_class c WHERE c.oid = 'jobq.jobs'::regclass`).Scan(&d.Estimated); err != nil {
			return d, fmt.Errorf("estimate: %w", err)
		}
	} else {
		d.Capped = false
	}
	// The last hour by queue and minute: finished jobs in one pass over the history's finish-time
	// index, failed attempts over jobq.job_attempts' end-time index (hash aggregates, no sort).
	t0 := now.Truncate(time.Minute).Add(-59 * time.Minute)
	d.Minutes = newHour(t0)
	bar := func(queue string, at time.Time) (*minute, *minute, *queueRow) {
		i := int(at.Sub(t0) / time.Minute)
		if i < 0 || i >= 60 {
			return nil, nil, nil
		}
		x := byName[queue]
		if x == nil {
			return &d.Minutes[i], nil, nil
		}
		if x.Minutes == nil {
			x.Minutes = newHour(t0)
		}
		return &d.Minutes[i], &x.Minutes[i], x
	}
	var queue string
	var at time.Time
	var ok, dead, failed int64
	rows, err = q.Query(ctx, `SELECT h.queue, date_trunc('minute', h.finished_at),
			count(*) FILTER (WHERE h.state = 'succeeded'), count(*) FILTER (WHERE h.state = 'dead')
		FROM jobq.job_history h WHERE h.finished_at >= $1 GROUP BY 1, 2`, t0)
	if err != nil {
		return d, fmt.Errorf("last hour: %w", err)
	}
	_, err = pgx.ForEachRow(rows, []any{&queue, &at, &ok, &dead}, func() error {
		all, one, x := bar(queue, at)
		if all == nil {
			return nil
		}
		all.Succeeded += ok
		all.Dead += dead
		d.Totals.Succeeded += ok
		d.Totals.Dead += dead
		if x != nil {
			one.Succeeded, one.Dead = ok, dead
			x.SucceededLastHour += ok
			x.DeadLastHour += dead
		}
		return nil
	})
	if err != nil {
		return d, fmt.Errorf("last hour: %w", err)
	}
	rows, err = q.Query(ctx, `SELECT a.queue, date_trunc('minute', a.ended_at), count(*)
		FROM jobq.job_attempts a WHERE a.ended_at >= $1 GROUP BY 1, 2`, t0)
	if err != nil {
		return d, fmt.Errorf("attempts: %w", err)
	}
	_, err = pgx.ForEachRow(rows, []any{&queue, &at, &failed}, func() error {
		all, one, x := bar(queue, at)
		if all == nil {
			return nil
		}
		all.Failed += failed
		d.Totals.Failed += failed
		if x != nil {
			one.Failed = failed
			x.FailedLastHour += failed
		}
		return nil
	})
	if err != nil {
		return d, fmt.Errorf("attempts: %w", err)
	}
	if !fleet {
		return d, nil
	}
	d.Workers = map[string]int{}
	var state string
	var n int
	rows, err = q.Query(ctx, `SELECT state, count(*)::int FROM jobq.workers GROUP BY state`)
	if err != nil {
		return d, fmt.Errorf("workers: %w", err)
	}
	if _, err = pgx.ForEachRow(rows, []any{&state, &n}, func() error { d.Workers[state] = n; return nil }); err != nil {
		return d, fmt.Errorf("workers: %w", err)
	}
	d.Leader, err = loadLeader(ctx, q)
	return d, err
}

func loadLeader(ctx context.Context, q querier) (*leaderRow, error) {
	var l leaderRow
	err := q.QueryRow(ctx, `SELECT holder, epoch, acquired_at, lease_expires_at FROM jobq.leader`).Scan(&l.Holder, &l.Epoch, &l.Acquired, &l.Expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("leader: %w", err)
	}
	return &l, nil
}

// jobFilter is a list page's filter, read from (and written back to) the URL so a filtered view
// can be shared as a link.
type jobFilter struct {
	Queue, State, Task, Store, Key, Since string
	Before                                int64
	Problem                               string // why the filter was refused, shown instead of rows
}

var (
	uuidPattern  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	jobStates    = []string{"queued", "retry_pending", "running", "succeeded", "dead", "canceled"}
	sinceChoices = []struct{ Value, Label string }{{"", "any time"}, {"15m", "last 15 minutes"}, {"1h", "last hour"}, {"24h", "last day"}, {"168h", "last week"}}
)

// parseJobFilter reads a filter from the query string. A value it cannot use sets Problem.
func parseJobFilter(v url.Values) jobFilter {
	f := jobFilter{Queue: v.Get("queue"), State: v.Get("state"), Task: v.Get("task"), Store: v.Get("store"), Key: v.Get("key"), Since: v.Get("since")}
	for _, s := range []*string{&f.Queue, &f.Task, &f.Key} {
		if len(*s) > 500 {
			f.Problem = "a filter value is longer than 500 characters"
		}
	}
	if f.State != "" && !slices.Contains(jobStates, f.State) {
		f.Problem = fmt.Sprintf("state %q is not one of %v", f.State, jobStates)
	}
	if f.Store != "" && !uuidPattern.MatchString(f.Store) {
		f.Problem = fmt.Sprintf("store %q is not a uuid", f.Store)
	}
	if f.Since != "" {
		if _, err := time.ParseDuration(f.Since); err != nil {
			f.Problem = fmt.Sprintf("since %q is not a duration such as 1h", f.Since)
		}
	}
	if b := v.Get("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n <= 0 {
			f.Problem = fmt.Sprintf("before %q is not a job id", b)
		}
		f.Before = n
	}
	return f
}

// values writes the filter back as a query string, with before set to the given id (0: none).
func (f jobFilter) values(before int64) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"queue": f.Queue, "state": f.State, "task": f.Task, "store": f.Store, "key": f.Key, "since": f.Since} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if before > 0 {
		v.Set("before", strconv.FormatInt(before, 10))
	}
	return v
}

// BulkFields are the filter's fields a bulk action repeats (every one but state and the cursor).
func (f jobFilter) BulkFields() map[string]string {
	m := map[string]string{}
	for k, vs := range f.values(0) {
		if k != "state" {
			m[k] = vs[0]
		}
	}
	return m
}

// Query is the filter as a query string for links (without the page cursor).
func (f jobFilter) Query() string { return f.values(0).Encode() }

// Active says whether any filter is set.
func (f jobFilter) Active() bool { return f.Query() != "" }

func (f jobFilter) client(dbNow time.Time) jobq.JobFilter {
	jf := jobq.JobFilter{Queue: f.Queue, State: f.State, Task: f.Task, StoreID: f.Store, Key: f.Key, Before: f.Before, Limit: pageSize + 1}
	if d, err := time.ParseDuration(f.Since); err == nil && d > 0 {
		jf.Since = dbNow.Add(-d)
	}
	return jf
}

type jobsData struct {
	Filter jobFilter
	Jobs   []jobq.JobInfo
	Next   string // the query string of the next page, "" on the last
	States []string
	Since  []struct{ Value, Label string }
}

// loadJobs reads one page of jobs (live and finished) matching the filter, newest first.
func loadJobs(ctx context.Context, q querier, f jobFilter, dbNow time.Time) (jobsData, error) {
	d := jobsData{Filter: f, States: jobStates, Since: sinceChoices}
	if f.Problem != "" {
		return d, nil
	}
	jobs, err := jobq.NewClient(q).ListJobs(ctx, f.client(dbNow))
	if err != nil {
		return d, err
	}
	if len(jobs) > pageSize {
		jobs = jobs[:pageSize]
		d.Next = f.values(jobs[pageSize-1].ID).Encode()
	}
	d.Jobs = jobs
	return d, nil
}

type auditRow struct {
	ID     int64
	At     time.Time
	Actor  string
	Action string
	JobID  *int64
	Detail string
}

type jobData struct {
	Job      jobq.JobInfo
	Payload  string
	Timeline []event
	Audit    []auditRow
	// Holds are the rules that hold a live job now (jobq.explain_job); empty: claimable.
	Holds []jobq.JobHold
}

// event is one line of a job's timeline.
type event struct {
	At    time.Time
	What  string
	Who   string
	Error string
	Bad   bool
}

func loadJob(ctx context.Context, q querier, id int64, operatorView bool) (jobData, error) {
	var d jobData
	job, err := jobq.NewClient(q).GetJob(ctx, id)
	if err != nil {
		return d, err
	}
	d.Job = job
	d.Payload = indentJSON(job.Payload)
	d.Timeline = append(d.Timeline, event{At: job.CreatedAt, What: "enqueued"})
	if job.RunAt.After(job.CreatedAt) {
		d.Timeline = append(d.Timeline, event{At: job.RunAt, What: "due"})
	}
	for _, a := range job.Attempts {
		if a.StartedAt != nil {
			d.Timeline = append(d.Timeline, event{At: *a.StartedAt, What: fmt.Sprintf("attempt %d claimed", a.Attempt), Who: deref(a.Worker)})
		}
		d.Timeline = append(d.Timeline, event{At: a.EndedAt, What: fmt.Sprintf("attempt %d failed: %s", a.Attempt, a.Reason), Who: deref(a.Worker), Error: deref(a.Error), Bad: true})
	}
	if job.State == "running" && job.LockedBy != nil {
		d.Timeline = append(d.Timeline, event{At: job.UpdatedAt, What: fmt.Sprintf("attempt %d running", job.Attempt), Who: *job.LockedBy})
	}
	if job.FinishedAt != nil {
		d.Timeline = append(d.Timeline, event{At: *job.FinishedAt, What: job.State, Who: deref(job.LockedBy), Error: deref(job.LastError), Bad: job.State != "succeeded"})
	}
	sortEvents(d.Timeline)
	if job.FinishedAt == nil {
		if d.Holds, err = jobq.NewClient(q).ExplainJob(ctx, id); err != nil {
			return d, err
		}
	}
	if operatorView {
		d.Audit, err = loadAudit(ctx, q, auditFilter{JobID: id}, 100)
	}
	return d, err
}

type deadData struct {
	Filter jobFilter
	States []string // none: the page shows dead jobs only
	Jobs   []jobq.JobInfo
	Next   string
	Since  []struct{ Value, Label string }
}

func loadDead(ctx context.Context, q querier, f jobFilter, dbNow time.Time) (deadData, error) {
	f.State = "dead"
	d := deadData{Filter: f, Since: sinceChoices}
	jd, err := loadJobs(ctx, q, f, dbNow)
	d.Jobs, d.Next = jd.Jobs, jd.Next
	return d, err
}

// bulkLimit is the most dead jobs one bulk action takes; the confirmation says so when more match.
const bulkLimit = 10000

// matchingDead returns the ids of up to bulkLimit+1 dead jobs matching f, newest first.
func matchingDead(ctx context.Context, q querier, f jobFilter, dbNow time.Time) ([]int64, error) {
	f.State, f.Before = "dead", 0
	jf := f.client(dbNow)
	var since *time.Time
	if !jf.Since.IsZero() {
		since = &jf.Since
	}
	rows, err := q.Query(ctx, `SELECT h.id FROM jobq.job_history h
		WHERE h.state = 'dead' AND ($1::text IS NULL OR h.queue = $1) AND ($2::text IS NULL OR h.task = $2)
		  AND ($3::uuid IS NULL OR h.store_id = $3::uuid) AND ($4::text IS NULL OR h.job_key = $4)
		  AND ($5::timestamptz IS NULL OR h.finished_at >= $5)
		ORDER BY h.id DESC LIMIT $6`, nullIfEmpty(f.Queue), nullIfEmpty(f.Task), nullIfEmpty(f.Store), nullIfEmpty(f.Key), since, bulkLimit+1)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

type workerRow struct {
	ID, Node, State, Version string
	PID                      *int32
	Queues                   []string
	Tasks                    []string // the tasks it serves (jobq.workers.tasks)
	EveryTask                bool     // registered without a list: it serves every task
	Concurrency, Running     int32
	Started, Heartbeat       time.Time
	HeartbeatAge             time.Duration
	StateChanged             time.Time
	Leader                   bool
}

type workersData struct {
	Workers []workerRow
	Leader  *leaderRow
}

func loadWorkers(ctx context.Context, q querier) (workersData, error) {
	var d workersData
	var err error
	if d.Leader, err = loadLeader(ctx, q); err != nil {
		return d, err
	}
	rows, err := q.Query(ctx, `SELECT w.id, w.node, w.state, w.version, w.pid, w.queues, w.tasks, w.concurrency, w.running,
			w.started_at, w.heartbeat_at, greatest(now() - w.heartbeat_at, interval '0'), w.state_changed_at,
			coalesce(l.holder = w.id AND l.lease_expires_at > now(), false)
		FROM jobq.workers w LEFT JOIN jobq.leader l ON true
		ORDER BY w.state = 'stopped', w.id`)
	if err != nil {
		return d, fmt.Errorf("workers: %w", err)
	}
	d.Workers, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (workerRow, error) {
		var w workerRow
		err := r.Scan(&w.ID, &w.Node, &w.State, &w.Version, &w.PID, &w.Queues, &w.Tasks, &w.Concurrency, &w.Running,
			&w.Started, &w.Heartbeat, &w.HeartbeatAge, &w.StateChanged, &w.Leader)
		w.EveryTask = w.Tasks == nil
		return w, err
	})
	return d, err
}

type scheduleRow struct {
	Name, Cron, Timezone, Task, Policy string
	Queue                              *string
	Enabled                            bool
	PausedAt                           *time.Time
	PausedBy                           *string
	NextSlot, LastSlot                 *time.Time
	LastJob                            *int64
	Upcoming                           []time.Time
	Runs                               []scheduleRun
}

type scheduleRun struct {
	Slot    time.Time
	Outcome string
	Reason  *string
	JobID   *int64
	At      time.Time
	Late    time.Duration // how long after its slot the run was recorded
}

func loadSchedules(ctx context.Context, q querier) ([]scheduleRow, error) {
	rows, err := q.Query(ctx, `SELECT s.name, s.cron, s.timezone, s.task, s.concurrency_policy, s.queue, s.enabled,
			s.paused_at, s.paused_by, s.next_slot_at, s.last_slot_at, s.last_job_id,
			ARRAY(SELECT jobq.cron_slots(s.cron, now(), now() + interval '400 days', s.timezone, 3))
		FROM jobq.schedules s ORDER BY s.name`)
	if err != nil {
		return nil, fmt.Errorf("schedules: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (scheduleRow, error) {
		var s scheduleRow
		err := r.Scan(&s.Name, &s.Cron, &s.Timezone, &s.Task, &s.Policy, &s.Queue, &s.Enabled, &s.PausedAt,
			&s.PausedBy, &s.NextSlot, &s.LastSlot, &s.LastJob, &s.Upcoming)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("schedules: %w", err)
	}
	byName := map[string]*scheduleRow{}
	for i := range list {
		byName[list[i].Name] = &list[i]
	}
	rows, err = q.Query(ctx, `SELECT r.schedule, r.slot_at, r.outcome, r.reason, r.job_id, r.created_at,
			greatest(r.created_at - r.slot_at, interval '0')
		FROM jobq.schedules s
		CROSS JOIN LATERAL (SELECT * FROM jobq.schedule_runs r WHERE r.schedule = s.name ORDER BY r.slot_at DESC LIMIT 5) r
		ORDER BY r.schedule, r.slot_at DESC`)
	if err != nil {
		return nil, fmt.Errorf("schedule runs: %w", err)
	}
	var name string
	var run scheduleRun
	_, err = pgx.ForEachRow(rows, []any{&name, &run.Slot, &run.Outcome, &run.Reason, &run.JobID, &run.At, &run.Late}, func() error {
		if s := byName[name]; s != nil {
			s.Runs = append(s.Runs, run)
		}
		return nil
	})
	return list, err
}

type settingRow struct {
	Name, Kind, Value, Description string
	Updated                        time.Time
}

func loadSettings(ctx context.Context, q querier) ([]settingRow, error) {
	rows, err := q.Query(ctx, `SELECT name, kind, value, description, updated_at FROM jobq.settings ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (settingRow, error) {
		var s settingRow
		err := r.Scan(&s.Name, &s.Kind, &s.Value, &s.Description, &s.Updated)
		return s, err
	})
}

// auditFilter selects audit log rows.
type auditFilter struct {
	Actor, Action string
	JobID         int64
	Before        int64
	Problem       string
}

func parseAuditFilter(v url.Values) auditFilter {
	f := auditFilter{Actor: v.Get("actor"), Action: v.Get("action")}
	if len(f.Actor) > 200 || len(f.Action) > 200 {
		f.Problem = "a filter value is longer than 200 characters"
	}
	for k, dst := range map[string]*int64{"job": &f.JobID, "before": &f.Before} {
		if s := v.Get(k); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n <= 0 {
				f.Problem = fmt.Sprintf("%s %q is not an id", k, s)
			}
			*dst = n
		}
	}
	return f
}

func (f auditFilter) values(before int64) url.Values {
	v := url.Values{}
	if f.Actor != "" {
		v.Set("actor", f.Actor)
	}
	if f.Action != "" {
		v.Set("action", f.Action)
	}
	if f.JobID > 0 {
		v.Set("job", strconv.FormatInt(f.JobID, 10))
	}
	if before > 0 {
		v.Set("before", strconv.FormatInt(before, 10))
	}
	return v
}

func loadAudit(ctx context.Context, q querier, f auditFilter, limit int) ([]auditRow, error) {
	rows, err := q.Query(ctx, `SELECT a.id, a.at, a.actor, a.action, a.job_id, a.detail::text FROM jobq.audit_log a
		WHERE ($1::text IS NULL OR a.actor = $1) AND ($2::text IS NULL OR a.action = $2)
		  AND ($3::bigint IS NULL OR a.job_id = $3) AND ($4::bigint IS NULL OR a.id < $4)
		ORDER BY a.id DESC LIMIT $5`, nullIfEmpty(f.Actor), nullIfEmpty(f.Action), nullIfZero(f.JobID), nullIfZero(f.Before), limit)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (auditRow, error) {
		var a auditRow
		err := r.Scan(&a.ID, &a.At, &a.Actor, &a.Action, &a.JobID, &a.Detail)
		return a, err
	})
}

type auditData struct {
	Filter  auditFilter
	Rows    []auditRow
	Next    string
	Actions []string
}

func loadAuditPage(ctx context.Context, q querier, f auditFilter) (auditData, error) {
	d := auditData{Filter: f}
	if f.Problem != "" {
		return d, nil
	}
	rows, err := loadAudit(ctx, q, f, pageSize+1)
	if err != nil {
		return d, err
	}
	if len(rows) > pageSize {
		rows = rows[:pageSize]
		d.Next = f.values(rows[pageSize-1].ID).Encode()
	}
	d.Rows = rows
	return d, nil
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullIfZero(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
