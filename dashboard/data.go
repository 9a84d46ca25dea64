package dashboard

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/jobqdev/jobq/operator"
)

// pageSize is how many rows a list page shows; the next page starts after its last id (keyset
// pagination: no OFFSET walks a big table).
const pageSize = 50

// queueRow is a queue on the overview: its row of Operator.Queues (jobq.queue_list, the rows of
// jobq queues list and jobq stats) with its last hour by minute.
type queueRow struct {
	operator.Queue
	Minutes        []minute // the last hour of this queue
	FailedLastHour int64    // failed attempts in the last hour (jobq.queue_minutes)
}

// minute is one bar of the overview's chart.
type minute struct {
	At                      time.Time
	Succeeded, Failed, Dead int64
}

type overviewData struct {
	Queues  []queueRow
	Live    int64 // the live jobs of the rows: queued, retrying, running, scheduled and blocked
	Minutes []minute
	// Totals are the sums of the queue rows: Succeeded and Dead over the last hour of
	// jobq.stats, Failed over the chart's hour; the cards show them, so they add up to the table.
	Totals  minute
	Workers map[string]int
	Leader  *operator.Leader
	// NotServed sums the queues' jobs no live worker serves; NotServedOldest is the longest
	// wait of a due one among them (nil when none is due).
	NotServed       int64
	NotServedOldest *operator.Seconds
	// CountedAt is when the rows' live counts were taken by jobq.maintain (the same for every
	// row: jobq.stats_counted_at); nil when they were counted at this request.
	CountedAt *time.Time
}

// newHour is 60 empty minutes from t0.
func newHour(t0 time.Time) []minute {
	ms := make([]minute, 60)
	for i := range ms {
		ms[i].At = t0.Add(time.Duration(i) * time.Minute)
	}
	return ms
}

// loadOverview reads the queues (Operator.Queues: the rows jobq queues list and jobq stats show,
// a store's staff its store's only) and the last hour by queue and minute (Operator.Minutes); for
// the fleet's view also the workers by state and the leader. The cards are sums of the table.
func loadOverview(ctx context.Context, q querier, fleet bool, now time.Time) (overviewData, error) {
	var d overviewData
	op := operator.New(q)
	queues, err := op.Queues(ctx, operator.QueueFilter{})
	if err != nil {
		return d, fmt.Errorf("queues: %w", err)
	}
	byName := map[string]*queueRow{}
	d.Queues = make([]queueRow, len(queues))
	for i, x := range queues {
		d.Queues[i].Queue = x
		byName[x.Queue] = &d.Queues[i]
		d.Live += x.Queued + x.RetryPending + x.Running + x.Scheduled + x.Blocked
		d.Totals.Succeeded += x.SucceededLastHour
		d.Totals.Dead += x.DeadLastHour
		d.NotServed += x.NotServed
		if x.CountedAt != nil {
			d.CountedAt = x.CountedAt
		}
		if x.NotServedOldestAge != nil && (d.NotServedOldest == nil || *x.NotServedOldestAge > *d.NotServedOldest) {
			d.NotServedOldest = x.NotServedOldestAge
		}
	}
	// The last hour by queue and minute, for the chart and each row's sparkline.
	t0 := now.Truncate(time.Minute).Add(-59 * time.Minute)
	d.Minutes = newHour(t0)
	minutes, err := op.Minutes(ctx, t0)
	if err != nil {
		return d, fmt.Errorf("last hour: %w", err)
	}
	for _, m := range minutes {
		i := int(m.At.Sub(t0) / time.Minute)
		if i < 0 || i >= 60 {
			continue
		}
		all := &d.Minutes[i]
		all.Succeeded += m.Succeeded
		all.Dead += m.Dead
		all.Failed += m.Failed
		if x := byName[m.Queue]; x != nil {
			if x.Minutes == nil {
				x.Minutes = newHour(t0)
			}
			x.Minutes[i].Succeeded, x.Minutes[i].Dead, x.Minutes[i].Failed = m.Succeeded, m.Dead, m.Failed
			x.FailedLastHour += m.Failed
			d.Totals.Failed += m.Failed
		}
	}
	if !fleet {
		return d, nil
	}
	workers, err := op.Workers(ctx, "")
	if err != nil {
		return d, fmt.Errorf("workers: %w", err)
	}
	d.Workers = map[string]int{}
	for _, w := range workers {
		d.Workers[w.State]++
	}
	d.Leader, err = loadLeader(ctx, q)
	return d, err
}

// loadLeader reads the leadership; nil before any runner led.
func loadLeader(ctx context.Context, q querier) (*operator.Leader, error) {
	l, err := operator.New(q).Leader(ctx)
	if err != nil {
		return nil, fmt.Errorf("leader: %w", err)
	}
	if l.Holder == nil && l.Epoch == 0 {
		return nil, nil
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
	jobStates    = []string{"queued", "retry_pending", "running", "blocked", "succeeded", "dead", "canceled"}
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

func (f jobFilter) client(dbNow time.Time) operator.JobFilter {
	jf := operator.JobFilter{Queue: f.Queue, State: f.State, Task: f.Task, StoreID: f.Store, Key: f.Key, Before: f.Before, Limit: pageSize + 1}
	if d, err := time.ParseDuration(f.Since); err == nil && d > 0 {
		jf.Since = dbNow.Add(-d)
	}
	return jf
}

type jobsData struct {
	Filter jobFilter
	Jobs   []operator.Job
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
	jobs, err := operator.New(q).Jobs(ctx, f.client(dbNow))
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

type jobData struct {
	Job      operator.Job
	Payload  string
	Timeline []event
	Audit    []operator.AuditEntry
	// Holds are the rules that hold a live job now (jobq.explain_job); empty: claimable.
	Holds []operator.Hold
	// Batch is the batch the job belongs to, with its progress; nil: none.
	Batch *operator.Batch
	// Workflow is the graph of the workflow it belongs to (workflow.go); nil: none.
	Workflow *workflowView
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
	job, err := operator.New(q).Job(ctx, id)
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
	if d.Batch, err = operator.New(q).BatchOfJob(ctx, id); err != nil {
		return d, err
	}
	if d.Workflow, err = loadWorkflow(ctx, q, id); err != nil {
		return d, err
	}
	if job.FinishedAt == nil {
		if d.Holds, err = operator.New(q).ExplainJob(ctx, id); err != nil {
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
	Jobs   []operator.Job
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
	jf.Limit = bulkLimit + 1
	jobs, err := operator.New(q).Jobs(ctx, jf)
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids, err
}

type workersData struct {
	Workers []operator.Worker
	Leader  *operator.Leader
}

func loadWorkers(ctx context.Context, q querier) (workersData, error) {
	var d workersData
	var err error
	if d.Leader, err = loadLeader(ctx, q); err != nil {
		return d, err
	}
	d.Workers, err = operator.New(q).Workers(ctx, "")
	// The workers that still run first, the stopped ones below them, each group in start order.
	slices.SortStableFunc(d.Workers, func(a, b operator.Worker) int {
		return cmp.Compare(boolRank(a.State == "stopped"), boolRank(b.State == "stopped"))
	})
	return d, err
}

// boolRank orders false before true.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func loadSchedules(ctx context.Context, q querier) ([]operator.Schedule, error) {
	return operator.New(q).Schedules(ctx)
}

func loadSettings(ctx context.Context, q querier) ([]operator.Setting, error) {
	return operator.New(q).Settings(ctx, "")
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

func loadAudit(ctx context.Context, q querier, f auditFilter, limit int) ([]operator.AuditEntry, error) {
	return operator.New(q).Audit(ctx, operator.AuditFilter{Actor: f.Actor, Action: f.Action, JobID: f.JobID, Before: f.Before, Limit: limit})
}

type auditData struct {
	Filter  auditFilter
	Rows    []operator.AuditEntry
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
