package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/jobqdev/jobq/internal/jobsql"
)

// WorkerState is a runner's state in jobq.workers.
type WorkerState string

// The worker states. A runner is told its state by every WorkerHeartbeat and obeys it.
const (
	// WorkerActive claims and runs jobs.
	WorkerActive WorkerState = "active"
	// WorkerDraining claims nothing new and finishes the jobs it holds (jobq.drain_worker).
	WorkerDraining WorkerState = "draining"
	// WorkerDetached claims nothing and its leases were rescued (jobq.detach_worker).
	WorkerDetached WorkerState = "detached"
	// WorkerLost missed its heartbeats for longer than the setting worker_timeout; maintain
	// rescued its leases. A lost worker that heartbeats again is active.
	WorkerLost WorkerState = "lost"
	// WorkerStopped exited cleanly (DeregisterWorker).
	WorkerStopped WorkerState = "stopped"
)

// WorkerInfo describes a runner to RegisterWorker.
type WorkerInfo struct {
	ID          string   // the runner's worker id (locked_by of its claims)
	Node        string   // the host it runs on
	PID         int      // its process id; 0 = unknown
	Queues      []string // the queues it serves, at least one
	Concurrency int      // the most jobs it runs at once, at least 1
	Version     string   // the runner's version, free text
	// Tasks are the tasks it serves (has handlers for), as it passes them to its claims; nil =
	// every task (a runner before issue 30), empty = none. A waiting job of a task that no live
	// worker of its queue serves shows as not served (jobq.stats, jobq queues, the dashboard).
	Tasks []string
}

// Settings are the engine's tunables (jobq.settings) as register_worker and worker_heartbeat
// return them.
type Settings struct {
	// Values holds every setting as stored: name → text.
	Values map[string]string
	// Intervals holds the settings of kind interval, parsed by PostgreSQL.
	Intervals map[string]time.Duration
}

// Interval returns the interval setting name, and false when there is none.
func (s Settings) Interval(name string) (time.Duration, bool) {
	d, ok := s.Intervals[name]
	return d, ok
}

// settingsSQL turns the settings object a worker function returns (column settings) into its
// interval settings in seconds, so PostgreSQL, not Go, parses interval text.
const settingsSQL = `(SELECT coalesce(jsonb_object_agg(e.key, extract(epoch FROM e.value::interval)), '{}')
	FROM jsonb_each_text(settings) AS e JOIN jobq.settings AS s ON s.name = e.key AND s.kind = 'interval')`

func decodeSettings(values, seconds []byte) (Settings, error) {
	s := Settings{Values: map[string]string{}, Intervals: map[string]time.Duration{}}
	if err := json.Unmarshal(values, &s.Values); err != nil {
		return s, err
	}
	var secs map[string]float64
	if err := json.Unmarshal(seconds, &secs); err != nil {
		return s, err
	}
	for name, v := range secs {
		s.Intervals[name] = time.Duration(math.Round(v*1e6)) * time.Microsecond
	}
	return s, nil
}

// RegisterWorker registers (or re-registers) a runner as active in jobq.workers and returns the
// settings it should apply. Errors: ErrInvalidArgument.
func (e *Engine) RegisterWorker(ctx context.Context, w WorkerInfo) (Settings, error) {
	var values, seconds []byte
	var pid *int
	if w.PID != 0 {
		pid = &w.PID
	}
	err := e.db.QueryRow(ctx, `SELECT settings, `+settingsSQL+`
		FROM jobq.register_worker($1, $2, $3, $4, $5, $6, $7::text[]) AS settings`,
		w.ID, w.Node, pid, w.Queues, w.Concurrency, w.Version, w.Tasks).Scan(&values, &seconds)
	if err != nil {
		return Settings{}, jobsql.Wrap(err, "register_worker")
	}
	s, err := decodeSettings(values, seconds)
	return s, jobsql.Wrap(err, "register_worker")
}

// WorkerHeartbeat records that workerID is alive with running jobs in hand, and returns the
// state it must obey (draining and detached runners stop claiming) and the current settings.
// Errors: ErrUnknownWorker (not registered: register again).
func (e *Engine) WorkerHeartbeat(ctx context.Context, workerID string, running int) (WorkerState, Settings, error) {
	var state string
	var values, seconds []byte
	err := e.db.QueryRow(ctx, `SELECT state, settings, `+settingsSQL+` FROM jobq.worker_heartbeat($1, $2)`,
		workerID, running).Scan(&state, &values, &seconds)
	if err != nil {
		return "", Settings{}, jobsql.Wrap(err, "worker_heartbeat")
	}
	s, err := decodeSettings(values, seconds)
	return WorkerState(state), s, jobsql.Wrap(err, "worker_heartbeat")
}

// DeregisterWorker marks workerID stopped after a clean exit and gives up its leadership, if it
// holds it, so another runner takes over at once.
func (e *Engine) DeregisterWorker(ctx context.Context, workerID string) error {
	_, err := e.db.Exec(ctx, `SELECT jobq.deregister_worker($1)`, workerID)
	return jobsql.Wrap(err, "deregister_worker")
}

// AcquireLeadership takes the leadership for workerID when nobody holds a live lease on it, or
// renews it, for ttl (0 = the function's default, 15 seconds). It returns the fencing epoch and
// true while workerID leads, 0 and false when another worker does. The epoch grows on every
// change of leader; pass it to Maintain. Errors: ErrInvalidArgument, ErrLeaseInvalid.
func (e *Engine) AcquireLeadership(ctx context.Context, workerID string, ttl time.Duration) (int64, bool, error) {
	var epoch *int64
	var err error
	if ttl > 0 {
		err = e.db.QueryRow(ctx, `SELECT jobq.acquire_leadership($1, $2)`, workerID, jobsql.Interval(ttl)).Scan(&epoch)
	} else {
		err = e.db.QueryRow(ctx, `SELECT jobq.acquire_leadership($1)`, workerID).Scan(&epoch)
	}
	if err != nil {
		return 0, false, jobsql.Wrap(err, "acquire_leadership")
	}
	if epoch == nil {
		return 0, false, nil
	}
	return *epoch, true, nil
}

// MaintainResult is what one jobq.maintain call did (or, fenced, why it did nothing).
type MaintainResult struct {
	// Fenced is true when the caller does not lead with the epoch it passed: nothing was done.
	Fenced bool `json:"fenced"`
	// Epoch is the epoch passed; nil for an unfenced call.
	Epoch *int64 `json:"epoch"`
	// CurrentEpoch and Holder name the leadership as it is, when Fenced.
	CurrentEpoch int64   `json:"current_epoch"`
	Holder       *string `json:"holder"`
	// SlotsEnqueued and SlotsSkipped count the cron slots handled: jobs enqueued, and slots
	// recorded as skipped (late, forbid, superseded).
	SlotsEnqueued int `json:"slots_enqueued"`
	SlotsSkipped  int `json:"slots_skipped"`
	// LostWorkers are the workers marked lost (heartbeat older than worker_timeout); their
	// leases were rescued.
	LostWorkers []string `json:"lost_workers"`
	// Rescued counts the expired leases and timed-out jobs swept.
	Rescued int `json:"rescued"`
	// HistoryPruned counts the history rows deleted past history_retention.
	HistoryPruned int64 `json:"history_pruned"`
	// Dead are the jobs that died in this call's sweep (orphaned, timed_out or detached on
	// their last attempt). A job dies in exactly one sweep, so exactly one maintain returns it:
	// the runner that called it reports it (Config.Reporter).
	Dead []SweptDead `json:"dead"`
}

// SweptDead is a job that died in a sweep of jobq.maintain.
type SweptDead struct {
	JobID      int64   `json:"job_id"`
	Task       string  `json:"task"`
	Queue      string  `json:"queue"`
	StoreID    *string `json:"store_id"`
	Attempt    int     `json:"attempt"`
	Reason     string  `json:"reason"` // orphaned, timed_out or detached
	Worker     string  `json:"worker"` // the worker that lost it
	Error      string  `json:"error"`
	DurationMs int64   `json:"duration_ms"` // from its claim to the sweep
}

// Did reports whether the call did any work.
func (m MaintainResult) Did() bool {
	return m.SlotsEnqueued+m.SlotsSkipped+len(m.LostWorkers)+m.Rescued > 0 || m.HistoryPruned > 0
}

// Maintain runs jobq.maintain: due cron slots, lost workers, expired leases and timeouts,
// retention, each batched. With a workerID it is fenced: it acts only while workerID leads with
// epoch, and otherwise returns Fenced and changes nothing. An empty workerID calls it unfenced
// (as pg_cron does), which is safe too. Errors: ErrInvalidArgument.
func (e *Engine) Maintain(ctx context.Context, workerID string, epoch int64) (MaintainResult, error) {
	var worker *string
	var ep *int64
	if workerID != "" {
		worker, ep = &workerID, &epoch
	}
	var doc []byte
	if err := e.db.QueryRow(ctx, `SELECT jobq.maintain($1, $2)`, worker, ep).Scan(&doc); err != nil {
		return MaintainResult{}, jobsql.Wrap(err, "maintain")
	}
	var m MaintainResult
	if err := json.Unmarshal(doc, &m); err != nil {
		return MaintainResult{}, fmt.Errorf("jobq: maintain: decode %s: %w", doc, err)
	}
	return m, nil
}
