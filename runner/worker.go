package runner

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
)

// deregisterTimeout bounds the deregister_worker call of a runner that stops.
const deregisterTimeout = 5 * time.Second

// workerInfo is what register_worker records about this runner.
func (r *Runner) workerInfo() engine.WorkerInfo {
	host, _ := os.Hostname()
	// The tasks it has handlers for, as its claims pass them: never nil, so that the engine
	// counts a job of another task as not served by this runner (empty: it serves none).
	tasks := r.served
	if tasks == nil {
		tasks = []string{}
	}
	return engine.WorkerInfo{ID: r.WorkerID(), Node: host, PID: os.Getpid(), Queues: r.cfg.Queues,
		Concurrency: r.cfg.Concurrency, Version: r.cfg.Version, Tasks: tasks}
}

// buildVersion is the main module's version from the build information.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// workerStatus is the state the engine last gave this runner (jobq.workers.state) and what it
// allows.
type workerStatus struct {
	mu       sync.Mutex
	state    engine.WorkerState
	detached bool // told it was detached: it claims no more, whatever it is told later
}

// mayClaim reports whether the runner may claim: the engine's last answer was active, and it
// was never detached.
func (w *workerStatus) mayClaim() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state == engine.WorkerActive && !w.detached
}

// notReady returns why the worker's state keeps it from being ready and what undoes it, or "".
func (w *workerStatus) notReady() (why, hint string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.detached:
		return "the worker was detached (jobq.detach_worker): it claims no more jobs under this id",
			"It rejoins under a new worker id by itself once the jobs it runs are done and their results written."
	case w.state == engine.WorkerDraining:
		return "the worker is draining (jobq.drain_worker): it claims no new jobs and finishes the ones it holds",
			"jobq.resume_worker(worker_id) undoes a drain."
	}
	return "", ""
}

// isDetached reports whether the runner was detached and has not rejoined since.
func (w *workerStatus) isDetached() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.detached
}

// rejoined forgets the detach: the runner registered under a new id, active.
func (w *workerStatus) rejoined(gauge *prometheus.GaugeVec) {
	w.mu.Lock()
	w.detached = false
	w.mu.Unlock()
	w.setState(engine.WorkerActive, gauge)
}

// setState records state, shows it in gauge (jobq_worker_state) and returns the previous one.
func (w *workerStatus) setState(state engine.WorkerState, gauge *prometheus.GaugeVec) (prev engine.WorkerState, wasDetached bool) {
	w.mu.Lock()
	prev, wasDetached = w.state, w.detached
	w.state = state
	if state == engine.WorkerDetached {
		w.detached = true
	}
	w.mu.Unlock()
	for _, s := range []engine.WorkerState{engine.WorkerActive, engine.WorkerDraining, engine.WorkerDetached} {
		v := 0.0
		if s == state {
			v = 1
		}
		gauge.WithLabelValues(string(s)).Set(v)
	}
	return prev, wasDetached
}

// workerEngine is the engine's side of a worker's registration: jobq.register_worker and
// jobq.worker_heartbeat. *engine.Engine satisfies it.
type workerEngine interface {
	RegisterWorker(ctx context.Context, w engine.WorkerInfo) (engine.Settings, error)
	WorkerHeartbeat(ctx context.Context, workerID string, running int) (engine.WorkerState, engine.Settings, error)
}

// workerHeartbeater heartbeats the runner's jobq.workers row every worker_heartbeat_interval
// with the number of running handlers, obeys the state the engine answers and applies its
// settings. It needs only the engine's two calls, what register_worker records, a count of the
// running handlers, the intervals in effect, a way to apply settings, the worker's status, the
// wake-up signal, a gauge and a logger.
type workerHeartbeater struct {
	engine  workerEngine
	info    func() engine.WorkerInfo // what register_worker records; ID names the worker
	running func() int               // handlers running now
	tune    tuning                   // worker_heartbeat_interval, and when it changes
	apply   func(engine.Settings)    // makes the engine's settings effective
	status  *workerStatus            // the state obeyed, read by the claim loop and Ready
	wake    *wakeSignal              // a change of state lets the claim loop claim or hand back
	gauge   *prometheus.GaugeVec     // jobq_worker_state{state}
	log     *slog.Logger

	now      <-chan struct{} // a heartbeat is wanted at once (the detach NOTIFY); nil: never
	detached func()          // called once when the engine first says detached; nil: nothing
	// rejoin is asked at each heartbeat while the runner is detached: when it holds no lease any
	// more it takes a new worker id (info then names it) and returns it; "" otherwise. nil: a
	// detached runner never rejoins.
	rejoin func() (oldID, newID string)
	// fence is called before each heartbeat: it stops the handlers whose lease may end; nil: none.
	fence func()
}

// run heartbeats until ctx ends. When a setting changes the interval, the next heartbeat is due
// one new interval after the last one.
func (w *workerHeartbeater) run(ctx context.Context) {
	errs := newErrorLog(w.log, "worker heartbeat failed")
	last := time.Now()
	t := time.NewTimer(w.tune.tunables().workerHeartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.tune.tuned():
			t.Reset(time.Until(last.Add(w.tune.tunables().workerHeartbeat)))
			continue
		case <-w.now:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		case <-t.C:
		}
		if w.fence != nil {
			w.fence() // handlers whose lease may end are stopped before anything else (fence.go)
		}
		last = time.Now()
		w.heartbeat(ctx, errs)
		t.Reset(w.tune.tunables().workerHeartbeat)
	}
}

// heartbeat makes one worker_heartbeat call and obeys its answer.
func (w *workerHeartbeater) heartbeat(ctx context.Context, errs *errorLog) {
	cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
	defer cancel()
	if w.rejoin != nil && w.status.isDetached() {
		if oldID, newID := w.rejoin(); newID != "" {
			// Seed 002 §7.3: a detached worker whose jobs are done rejoins under a new id. Should
			// this registration fail, the next heartbeat of the new id registers it.
			settings, err := w.engine.RegisterWorker(cctx, w.info())
			w.status.rejoined(w.gauge)
			w.log.Warn("worker rejoined under a new id after its detach: claiming again", "previousWorkerId", oldID, "newWorkerId", newID)
			w.wake.notify()
			if err != nil {
				errs.failed(err)
				return
			}
			errs.ok()
			w.apply(settings)
			return
		}
	}
	state, settings, err := w.engine.WorkerHeartbeat(cctx, w.info().ID, w.running())
	if errors.Is(err, jobq.ErrUnknownWorker) {
		// The row was pruned (the worker was lost or stopped long ago): register again.
		w.log.Warn("worker not registered; registering again", "error", err.Error())
		settings, err = w.engine.RegisterWorker(cctx, w.info())
		state = engine.WorkerActive
	}
	if err != nil {
		if ctx.Err() == nil {
			errs.failed(err)
		}
		return
	}
	errs.ok()
	if state == engine.WorkerStopped {
		// Another process deregistered this id while this one runs (two runners share a worker
		// id, or an operator's doing): register again so the row tells the truth.
		w.log.Warn("worker row says stopped while this runner runs; registering again (is the worker id shared?)")
		if settings, err = w.engine.RegisterWorker(cctx, w.info()); err != nil {
			errs.failed(err)
			return
		}
		state = engine.WorkerActive
	}
	w.apply(settings)
	w.obey(state)
}

// obey applies the state the engine gave this worker: active claims, draining and detached do
// not. The database decides the state; the runner only follows it.
func (w *workerHeartbeater) obey(state engine.WorkerState) {
	prev, wasDetached := w.status.setState(state, w.gauge)
	if state == prev {
		return
	}
	switch state {
	case engine.WorkerActive:
		if wasDetached {
			w.log.Warn("worker resumed after it was detached: it claims no more jobs under this id; it rejoins under a new one once its jobs are done", "state", state)
			return
		}
		w.log.Info("worker active: claiming again", "previousState", prev)
		w.wake.notify()
	case engine.WorkerDraining:
		w.log.Info("worker draining: claiming stopped; held jobs finish", "running", w.running())
		w.wake.notify() // the claim loop hands back the jobs it claimed ahead
	case engine.WorkerDetached:
		if wasDetached {
			return
		}
		w.log.Warn("worker detached: claiming stopped for good; its running jobs are confirmed or stopped (continuation)")
		w.wake.notify()
		if w.detached != nil {
			w.detached()
		}
	default:
		w.log.Warn("unexpected worker state from the engine; not claiming", "state", state)
	}
}

// deregister marks the worker stopped (and hands its leadership over) as Run returns.
func (r *Runner) deregister() {
	ctx, cancel := context.WithTimeout(context.Background(), deregisterTimeout)
	defer cancel()
	if err := r.engine.DeregisterWorker(ctx, r.WorkerID()); err != nil {
		r.log.Warn("deregister_worker failed; the worker will be marked lost after worker_timeout", "error", err.Error())
		return
	}
	r.log.Info("worker deregistered")
}
