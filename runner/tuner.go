package runner

import (
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobqdev/jobq/internal/engine"
)

// Built-in values of the engine's settings, used only when jobq.settings lacks one (the shipped
// settings have the same values). The settings themselves are read from the database at start
// and at every worker heartbeat.
const (
	// DefaultPollInterval is used when Config.PollInterval is zero and the setting poll_interval
	// is missing.
	DefaultPollInterval = time.Second
	// DefaultLease is used when Config.Lease is zero and the setting default_lease is missing.
	DefaultLease = 30 * time.Second
	// DefaultWorkerHeartbeatInterval is used when the setting worker_heartbeat_interval is missing.
	DefaultWorkerHeartbeatInterval = 5 * time.Second
	// DefaultLeaderTTL is used when the setting leader_ttl is missing.
	DefaultLeaderTTL = 15 * time.Second
	// DefaultMaintainInterval is used when the setting maintain_interval is missing.
	DefaultMaintainInterval = time.Second
	// DefaultContinuationRetryCount and DefaultContinuationRetryInterval are used when the
	// settings continuation_retry_count and continuation_retry_interval are missing.
	DefaultContinuationRetryCount    = 3
	DefaultContinuationRetryInterval = 300 * time.Millisecond
)

// tuning is where a loop reads the intervals in effect and learns that they changed. The Runner
// is one: it reads the engine's settings at every worker heartbeat.
type tuning interface {
	// tunables returns the intervals in effect now.
	tunables() tunables
	// tuned returns a channel that is closed when the tunables change next.
	tuned() <-chan struct{}
}

// tunables are the intervals the runner works with now: Config values given explicitly, else the
// engine's settings (jobq.settings, re-read at every worker heartbeat), else the built-in
// defaults.
type tunables struct {
	poll             time.Duration // claim without a notification
	lease            time.Duration // per claim and lease heartbeat
	workerHeartbeat  time.Duration // worker_heartbeat
	leaderTTL        time.Duration // acquire_leadership's ttl; renewed every third of it
	maintainInterval time.Duration // maintain, while leading

	continuationTries    int           // confirm_continuation calls of a detached runner
	continuationInterval time.Duration // between them
}

// tunablesFrom computes the tunables from the explicit Config.PollInterval and Config.Lease
// (zero: not given) and the engine's settings s.
func tunablesFrom(poll, lease time.Duration, s engine.Settings) tunables {
	setting := func(name string, def time.Duration) time.Duration {
		if d, ok := s.Interval(name); ok && d > 0 {
			return d
		}
		return def
	}
	explicit := func(v time.Duration, name string, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return setting(name, def)
	}
	return tunables{
		poll:             explicit(poll, "poll_interval", DefaultPollInterval),
		lease:            explicit(lease, "default_lease", DefaultLease),
		workerHeartbeat:  setting("worker_heartbeat_interval", DefaultWorkerHeartbeatInterval),
		leaderTTL:        setting("leader_ttl", DefaultLeaderTTL),
		maintainInterval: setting("maintain_interval", DefaultMaintainInterval),

		continuationTries:    intSetting(s, "continuation_retry_count", DefaultContinuationRetryCount),
		continuationInterval: setting("continuation_retry_interval", DefaultContinuationRetryInterval),
	}
}

// intSetting is the positive integer setting name of s, or def.
func intSetting(s engine.Settings, name string, def int) int {
	if n, err := strconv.Atoi(s.Values[name]); err == nil && n > 0 {
		return n
	}
	return def
}

// tuner holds the tunables in effect and tells the loops that pace themselves by them when
// they change, so a change of the engine's settings applies without a restart. It is the
// runner's tuning. It needs only the explicit Config values and a logger.
type tuner struct {
	poll, lease time.Duration // Config.PollInterval and Config.Lease; zero: not given
	log         *slog.Logger

	cur atomic.Pointer[tunables] // nil before the first apply
	mu  sync.Mutex
	ch  chan struct{} // closed (and replaced) whenever cur changes
}

// newTuner returns a tuner with nothing applied yet.
func newTuner(poll, lease time.Duration, log *slog.Logger) *tuner {
	return &tuner{poll: poll, lease: lease, log: log, ch: make(chan struct{})}
}

// apply makes the engine's settings s effective: it logs what changed and closes the channel
// tuned returned, waking the loops whose timers depend on it. The first apply logs nothing.
func (t *tuner) apply(s engine.Settings) {
	next := tunablesFrom(t.poll, t.lease, s)
	prev := t.cur.Swap(&next)
	if prev == nil || *prev == next {
		return
	}
	t.log.Info("settings applied", "leaseMs", next.lease.Milliseconds(), "pollIntervalMs", next.poll.Milliseconds(),
		"workerHeartbeatMs", next.workerHeartbeat.Milliseconds(), "leaderTtlMs", next.leaderTTL.Milliseconds(),
		"maintainIntervalMs", next.maintainInterval.Milliseconds())
	t.mu.Lock()
	close(t.ch)
	t.ch = make(chan struct{})
	t.mu.Unlock()
}

// tuned returns a channel that is closed when the tunables change next.
func (t *tuner) tuned() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ch
}

// tunables returns the tunables in effect: before the first apply, those of no settings.
func (t *tuner) tunables() tunables {
	if c := t.cur.Load(); c != nil {
		return *c
	}
	return tunablesFrom(t.poll, t.lease, engine.Settings{})
}

// current returns the tunables in effect, or nil before the first apply.
func (t *tuner) current() *tunables { return t.cur.Load() }
