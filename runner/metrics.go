package runner

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/jobqdev/jobq/internal/engine"
)

// metrics are one runner's Prometheus metrics, in a registry of its own (no global state):
//
//	jobq_jobs_claimed_total{task}           attempts claimed
//	jobq_jobs_completed_total{task}         attempts that succeeded
//	jobq_jobs_failed_total{task}            attempts that failed (retried or not)
//	jobq_jobs_dead_total{task}              failed attempts that were final (the job is dead)
//	jobq_jobs_lease_lost_total{task}        attempts whose lease was lost
//	jobq_jobs_fenced_total{task}            attempts this runner stopped itself: no renewal
//	                                        confirmed before the lease could end (fence.go)
//	jobq_jobs_canceled_total{task}          running attempts stopped by jobq.cancel_job
//	jobq_jobs_snoozed_total{task}           attempts snoozed by their handler
//	jobq_jobs_handed_back_total{task}       attempts handed back by a shutdown, or jobs claimed
//	                                        ahead and handed back before they ran
//	jobq_maintain_rescued_total             jobs this runner's maintain calls swept back to the
//	                                        queue or to dead (expired leases, timeouts)
//	jobq_sweep_rescued_total                jobs this runner's own sweeps (jobq.rescue_expired, while
//	                                        it does not lead) swept back to the queue or to dead
//	jobq_claims_handed_back_total           running jobs recorded under this worker whose lease it
//	                                        does not hold (a claim's answer was lost), handed back
//	jobq_results_unwritten                  results of returned handlers not yet written
//	jobq_claims_held_back_total             claims skipped because Config.MaxUnwrittenResults
//	                                        results waited to be written
//	jobq_job_run_seconds{task}              handler run time
//	jobq_job_wait_seconds{queue}            how long each claimed job waited past its run_at
//	                                        (claimed_at - run_at, the database's clock)
//	jobq_build_info{version,commit,go_version}  1; the jobq module's version, the binary's VCS
//	                                        revision ("unknown" without one) and Go version
//	jobq_leases_held                        leases this runner holds now
//	jobq_jobs_claimed_ahead                 jobs claimed ahead of a free handler slot (ClaimAhead)
//	jobq_listener_connected                 1 while the LISTEN connection is up (Wakeup notify)
//	jobq_wakeup_wal_connected               1 while the WAL wake-up streams from its slot (Wakeup wal)
//	jobq_wakeup_fallback                    1 while a runner in WAL mode has no slot and wakes by
//	                                        polling only; 0 otherwise (and always in notify mode)
//	jobq_wakeup_fallbacks_total{reason}     times the WAL wake-up could not start or was lost:
//	                                        wal_level, privilege, auth, no_slot, schema,
//	                                        timeout, connection or other
//	jobq_wakeup_messages_total              wake-up messages read from the slot
//	jobq_wakeup_slot_lag_bytes              pg_current_wal_lsn() - confirmed_flush_lsn of this
//	                                        runner's slot at scrape time; absent without a slot
//	jobq_queue_lag_seconds{queue}           how long the next due job has waited (jobq.queue_lag)
//	                                        at scrape time (0 when none is due)
//	jobq_queue_jobs{queue,state}            live jobs of each served queue by state: queued (due),
//	                                        retry_pending, running, scheduled (future run_at),
//	                                        blocked (waiting for parents or a sequence);
//	                                        jobq.queue_depth at scrape time
//	jobq_queue_dead_last_hour{queue}        jobs of each served queue that died in the last hour
//	                                        (jobq.queue_depth at scrape time)
//	jobq_jobs_not_served{queue}             waiting jobs of each served queue whose task no live
//	                                        worker of the queue serves (jobq.queue_not_served at
//	                                        scrape time; counted up to 10001)
//	jobq_jobs_not_served_oldest_seconds{queue}  how long the oldest due one has waited; 0 when
//	                                        none is due
//	jobq_leader                             1 while this runner leads, else 0
//	jobq_leader_epoch                       the fencing epoch this runner last led with (0: never)
//	jobq_maintain_runs_total{result}        maintain calls: ok, fenced (stale epoch: nothing done)
//	                                        or error
//	jobq_schedule_slots_total{outcome}      cron slots this runner's maintain handled: enqueued
//	                                        or skipped
//	jobq_worker_state{state}                1 for the state the engine last gave this worker
//	                                        (active, draining, detached), 0 for the others
//
// plus the Go runtime and process collectors.
type metrics struct {
	reg        *prometheus.Registry
	claimed    *prometheus.CounterVec
	completed  *prometheus.CounterVec
	failed     *prometheus.CounterVec
	dead       *prometheus.CounterVec
	leaseLost  *prometheus.CounterVec
	fenced     *prometheus.CounterVec
	canceled   *prometheus.CounterVec
	snoozed    *prometheus.CounterVec
	returned   *prometheus.CounterVec
	rescued    prometheus.Counter
	swept      prometheus.Counter
	unheld     prometheus.Counter
	heldBack   prometheus.Counter
	rescans    prometheus.Counter
	runTime    *prometheus.HistogramVec
	waitTime   *prometheus.HistogramVec
	listenerUp prometheus.Gauge

	walConnected    prometheus.Gauge
	wakeupFallback  prometheus.Gauge
	wakeupFallbacks *prometheus.CounterVec
	wakeupMessages  prometheus.Counter
	walSlot         atomic.Pointer[string] // the WAL wake-up's slot while it streams, for the lag

	leader        prometheus.Gauge
	leaderEpoch   prometheus.Gauge
	maintainRuns  *prometheus.CounterVec
	scheduleSlots *prometheus.CounterVec
	workerState   *prometheus.GaugeVec
}

// wakeupMetrics are the WAL wake-up's metrics, all parts of one runner's metrics.
type wakeupMetrics struct {
	connected prometheus.Gauge        // jobq_wakeup_wal_connected
	fallback  prometheus.Gauge        // jobq_wakeup_fallback
	fallbacks *prometheus.CounterVec  // jobq_wakeup_fallbacks_total{reason}
	messages  prometheus.Counter      // jobq_wakeup_messages_total
	slot      *atomic.Pointer[string] // the slot while it streams, for jobq_wakeup_slot_lag_bytes
}

// wakeup returns the WAL wake-up's part of m.
func (m *metrics) wakeup() wakeupMetrics {
	return wakeupMetrics{connected: m.walConnected, fallback: m.wakeupFallback, fallbacks: m.wakeupFallbacks,
		messages: m.wakeupMessages, slot: &m.walSlot}
}

// leadership returns the leader's part of m.
func (m *metrics) leadership() leaderMetrics {
	return leaderMetrics{leader: m.leader, epoch: m.leaderEpoch, maintainRuns: m.maintainRuns,
		scheduleSlots: m.scheduleSlots, rescued: m.rescued}
}

// metricsSource is what a runner's metrics read at scrape time besides their own counters.
type metricsSource struct {
	// held and ahead count the leases held and the jobs claimed ahead now; unwritten the
	// results not yet written (nil: none).
	held, ahead, unwritten func() int
	// lag reads the queue lag and depth of queues (jobq.queue_lag, jobq.queue_depth);
	// *engine.Engine satisfies it.
	lag    queueReader
	queues []string
	// db reads the wake-up slot's position in pg_replication_slots.
	db  rowQuerier
	log *slog.Logger // scrape errors, at most once every five minutes per collector
}

// queueReader reads how long the next due job of each queue has waited, and how many jobs each
// queue holds.
type queueReader interface {
	QueueLag(ctx context.Context, queues []string) ([]engine.QueueLag, error)
	QueueDepth(ctx context.Context, queues []string) ([]engine.QueueDepth, error)
	QueueNotServed(ctx context.Context, queues []string) ([]engine.QueueNotServed, error)
}

// newMetrics returns a registry of its own holding every metric of one runner; src serves the
// ones read at scrape time.
func newMetrics(src metricsSource) *metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "jobq", Name: name, Help: help}, labels)
	}
	m := &metrics{
		reg:       prometheus.NewRegistry(),
		claimed:   counter("jobs_claimed_total", "Attempts claimed, by task.", "task"),
		completed: counter("jobs_completed_total", "Attempts that succeeded, by task.", "task"),
		failed:    counter("jobs_failed_total", "Attempts that failed, retried or not, by task.", "task"),
		dead:      counter("jobs_dead_total", "Failed attempts that were final: the job is dead. By task.", "task"),
		leaseLost: counter("jobs_lease_lost_total", "Attempts whose lease was lost (rescued, cancelled or deleted elsewhere), by task.", "task"),
		fenced:    counter("jobs_fenced_total", "Attempts this runner stopped because no lease renewal was confirmed before the lease could end (self-fencing), by task.", "task"),
		canceled:  counter("jobs_canceled_total", "Running attempts stopped because an operator or application canceled the job, by task.", "task"),
		snoozed:   counter("jobs_snoozed_total", "Attempts snoozed by their handler, by task.", "task"),
		returned:  counter("jobs_handed_back_total", "Attempts handed back to the queue by a shutdown, and jobs claimed ahead handed back before they ran, by task.", "task"),
		rescued: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "jobq", Name: "maintain_rescued_total",
			Help: "Jobs swept by this runner's maintain calls as leader: expired leases and timeouts."}),
		swept: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "jobq", Name: "sweep_rescued_total",
			Help: "Jobs swept by this runner's own jobq.rescue_expired calls while it does not lead: expired leases and timeouts."}),
		unheld: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "jobq", Name: "claims_handed_back_total",
			Help: "Running jobs recorded under this worker whose lease it does not hold (a claim committed but its answer was lost), handed back to the queue."}),
		heldBack: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "jobq", Name: "claims_held_back_total",
			Help: "Claims skipped because Config.MaxUnwrittenResults results waited to be written."}),
		rescans: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "jobq", Name: "claim_rescans_total",
			Help: "Claims from the head of every queue wanted because jobq.claim_passed_over found a due job this runner's positioned claims passed over (or failed)."}),
		runTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "jobq", Name: "job_run_seconds", Help: "Handler run time, by task.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600},
		}, []string{"task"}),
		waitTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "jobq", Name: "job_wait_seconds",
			Help:    "How long each job this runner claimed waited past its run_at (claimed_at - run_at, the database's clock), by queue.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600},
		}, []string{"queue"}),
		listenerUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "jobq", Name: "listener_connected", Help: "1 while the LISTEN connection is up.",
		}),
		walConnected: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "jobq", Name: "wakeup_wal_connected", Help: "1 while the WAL wake-up streams from its replication slot.",
		}),
		wakeupFallback: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "jobq", Name: "wakeup_fallback",
			Help: "1 while a runner in WAL wake-up mode has no replication slot and wakes by polling only.",
		}),
		wakeupFallbacks: counter("wakeup_fallbacks_total",
			"Times the WAL wake-up could not start or was lost, by reason: wal_level, privilege, auth, no_slot, schema, timeout, connection or other.",
			"reason"),
		wakeupMessages: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "jobq", Name: "wakeup_messages_total",
			Help: "Wake-up messages (prefix jobq) read from the replication slot."}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "jobq", Name: "leader", Help: "1 while this runner leads (the engine gave it the leadership and maintain was not fenced).",
		}),
		leaderEpoch: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "jobq", Name: "leader_epoch", Help: "The fencing epoch this runner last led with; 0 when it never led.",
		}),
		maintainRuns:  counter("maintain_runs_total", "jobq.maintain calls of this runner as leader, by result: ok, fenced (it did nothing) or error.", "result"),
		scheduleSlots: counter("schedule_slots_total", "Cron slots handled by this runner's maintain calls, by outcome: enqueued or skipped.", "outcome"),
		workerState: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "jobq", Name: "worker_state", Help: "1 for the state the engine last gave this worker (active, draining, detached), 0 for the others.",
		}, []string{"state"}),
	}
	for _, result := range []string{"ok", "fenced", "error"} {
		m.maintainRuns.WithLabelValues(result)
	}
	for _, outcome := range []string{"enqueued", "skipped"} {
		m.scheduleSlots.WithLabelValues(outcome)
	}
	for _, state := range []string{"active", "draining", "detached"} {
		m.workerState.WithLabelValues(state)
	}
	for _, reason := range fallbackReasons {
		m.wakeupFallbacks.WithLabelValues(reason)
	}
	m.reg.MustRegister(m.claimed, m.completed, m.failed, m.dead, m.leaseLost, m.fenced, m.canceled, m.snoozed, m.returned, m.rescued,
		m.swept, m.unheld, m.heldBack, m.rescans,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "jobq", Name: "results_unwritten",
			Help: "Results of returned handlers not yet written to the database; claims stop at Config.MaxUnwrittenResults.",
		}, func() float64 {
			if src.unwritten == nil {
				return 0
			}
			return float64(src.unwritten())
		}),
		m.runTime, m.waitTime, m.listenerUp, m.leader, m.leaderEpoch, m.maintainRuns, m.scheduleSlots, m.workerState,
		m.walConnected, m.wakeupFallback, m.wakeupFallbacks, m.wakeupMessages,
		&slotLagCollector{db: src.db, slot: &m.walSlot, log: src.log, desc: prometheus.NewDesc("jobq_wakeup_slot_lag_bytes",
			"Bytes of WAL between pg_current_wal_lsn() and the confirmed_flush_lsn of this runner's wake-up slot, at scrape time; absent while it has no slot.",
			nil, nil)},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "jobq", Name: "leases_held", Help: "Leases this runner holds now (running handlers and unwritten results).",
		}, func() float64 { return float64(src.held()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "jobq", Name: "jobs_claimed_ahead", Help: "Jobs this runner claimed ahead of a free handler slot (Config.ClaimAhead); they wait under a renewed lease.",
		}, func() float64 { return float64(src.ahead()) }),
		&lagCollector{lag: src.lag, queues: src.queues, log: src.log, desc: prometheus.NewDesc("jobq_queue_lag_seconds",
			"Age of the oldest due job (queued or retry_pending, run_at passed) per served queue, from the database's clock; 0 when none is due.",
			[]string{"queue"}, nil)},
		&depthCollector{depth: src.lag, queues: src.queues, log: src.log,
			jobs: prometheus.NewDesc("jobq_queue_jobs",
				"Live jobs per served queue by state: queued (due), retry_pending, running, scheduled (queued with a future run_at), blocked (waiting for its parents or its sequence); read from jobq.queue_depth at scrape time. Every replica exports it: aggregate with max, not sum.",
				[]string{"queue", "state"}, nil),
			dead: prometheus.NewDesc("jobq_queue_dead_last_hour",
				"Jobs per served queue that died (moved to jobq.job_history as dead) in the last hour; read from jobq.queue_depth at scrape time.",
				[]string{"queue"}, nil)},
		&notServedCollector{read: src.lag, queues: src.queues, log: src.log,
			count: prometheus.NewDesc("jobq_jobs_not_served",
				"Waiting jobs (queued or retry_pending) per served queue whose task no live worker of the queue serves (no live worker registered it); read from jobq.queue_not_served at scrape time, counted up to 10001. Above 0, such jobs wait until a worker with a handler for their task starts.",
				[]string{"queue"}, nil),
			oldest: prometheus.NewDesc("jobq_jobs_not_served_oldest_seconds",
				"Age of the oldest due job per served queue that no live worker serves, from the database's clock; 0 when none is due.",
				[]string{"queue"}, nil)},
		buildInfo(),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// buildInfo is jobq_build_info: a constant 1 labelled with what this binary was built from.
func buildInfo() prometheus.Collector {
	version, commit := "(devel)", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = moduleVersion(bi)
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				commit = s.Value
			}
		}
	}
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "jobq", Name: "build_info",
		Help:        "1, labelled with the jobq module's version, the binary's VCS revision and its Go version.",
		ConstLabels: prometheus.Labels{"version": version, "commit": commit, "go_version": runtime.Version()},
	}, func() float64 { return 1 })
}

// moduleVersion is the version of the jobq module in bi: the main module's when jobq is built
// itself, else the dependency's; "(devel)" when neither has one.
func moduleVersion(bi *debug.BuildInfo) string {
	const path = "github.com/jobqdev/jobq"
	if bi.Main.Path == path && bi.Main.Version != "" {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil && d.Replace.Version != "" {
				return d.Replace.Version
			}
			if d.Version != "" {
				return d.Version
			}
		}
	}
	return "(devel)"
}

// Registry returns the runner's Prometheus registry, to add metrics or serve it elsewhere.
func (r *Runner) Registry() *prometheus.Registry { return r.metrics.reg }

// lagCollector reads the queue lag from the database at scrape time.
type lagCollector struct {
	lag    queueReader
	queues []string
	log    *slog.Logger
	desc   *prometheus.Desc

	mu        sync.Mutex
	lastError time.Time
}

func (c *lagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *lagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	// jobq.queue_lag reads the head of each queue's claim order for us: the runtime role has no
	// access to job rows.
	lags, err := c.lag.QueueLag(ctx, c.queues)
	for _, l := range lags {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, l.Lag.Seconds(), l.Queue)
	}
	if err != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if time.Since(c.lastError) > 5*time.Minute {
			c.lastError = time.Now()
			c.log.Warn("jobq_queue_lag_seconds: reading the queue lag failed", "error", err.Error())
		}
	}
}

// depthCollector reads the queue depth from the database at scrape time. On an error it sends
// nothing and the rest of the scrape goes on.
type depthCollector struct {
	depth      queueReader
	queues     []string
	log        *slog.Logger
	jobs, dead *prometheus.Desc

	mu        sync.Mutex
	lastError time.Time
}

func (c *depthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.jobs; ch <- c.dead }

func (c *depthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	// jobq.queue_depth counts for us: the runtime role has no access to job rows.
	depths, err := c.depth.QueueDepth(ctx, c.queues)
	if err != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if time.Since(c.lastError) > 5*time.Minute {
			c.lastError = time.Now()
			c.log.Warn("jobq_queue_jobs: reading the queue depth failed", "error", err.Error())
		}
		return
	}
	for _, d := range depths {
		for _, s := range []struct {
			state string
			n     int64
		}{{"queued", d.Queued}, {"retry_pending", d.RetryPending}, {"running", d.Running}, {"scheduled", d.Scheduled},
			{"blocked", d.Blocked}} {
			ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, float64(s.n), d.Queue, s.state)
		}
		ch <- prometheus.MustNewConstMetric(c.dead, prometheus.GaugeValue, float64(d.DeadLastHour), d.Queue)
	}
}

// notServedCollector reads, at scrape time, the waiting jobs of the served queues that no live
// worker serves. On an error it sends nothing and the rest of the scrape goes on.
type notServedCollector struct {
	read          queueReader
	queues        []string
	log           *slog.Logger
	count, oldest *prometheus.Desc

	mu        sync.Mutex
	lastError time.Time
}

func (c *notServedCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.count; ch <- c.oldest }

func (c *notServedCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	// jobq.queue_not_served counts for us, by the engine's one rule of a live worker: the runtime
	// role has no access to job rows.
	rows, err := c.read.QueueNotServed(ctx, c.queues)
	if err != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if time.Since(c.lastError) > 5*time.Minute {
			c.lastError = time.Now()
			c.log.Warn("jobq_jobs_not_served: reading the jobs not served failed", "error", err.Error())
		}
		return
	}
	for _, r := range rows {
		ch <- prometheus.MustNewConstMetric(c.count, prometheus.GaugeValue, float64(r.NotServed), r.Queue)
		var age float64
		if r.OldestAge != nil {
			age = r.OldestAge.Seconds()
		}
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age, r.Queue)
	}
}

// slotLagCollector reads, at scrape time, how far the wake-up slot's confirmed position trails
// the server's WAL: what the slot keeps from being recycled. It reads pg_replication_slots
// through the pool (any role may).
type slotLagCollector struct {
	db   rowQuerier
	slot *atomic.Pointer[string] // the slot while the WAL wake-up streams; nil otherwise
	log  *slog.Logger
	desc *prometheus.Desc

	mu        sync.Mutex
	lastError time.Time
}

func (c *slotLagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *slotLagCollector) Collect(ch chan<- prometheus.Metric) {
	slot := c.slot.Load()
	if slot == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	var lag *float64
	err := c.db.QueryRow(ctx, `SELECT greatest(pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), s.confirmed_flush_lsn), 0)::float8
		FROM pg_catalog.pg_replication_slots s WHERE s.slot_name = $1`, *slot).Scan(&lag)
	if err == nil && lag != nil {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, *lag)
		return
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if time.Since(c.lastError) > 5*time.Minute {
			c.lastError = time.Now()
			c.log.Warn("jobq_wakeup_slot_lag_bytes: reading the slot failed", "error", err.Error())
		}
	}
}
