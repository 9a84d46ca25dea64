package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// The idle-snapshot scenario: jobs flow at idleRate through one `jobq worker` at its defaults;
// after a baseline of BENCH_IDLE (10 minutes; 1 with BENCH_QUICK) a REPEATABLE READ transaction
// reads a row and stays open, idle, for another BENCH_IDLE, holding back vacuum; then one more
// minute runs without it. Pickup p99 (claimed_at − created_at, database clock) while the snapshot
// is open is judged against the baseline's (≤ 2 ×), and the size of jobq.jobs a minute after the
// snapshot ends against the baseline's largest (back within a minute: at most idleSizeSlack of it).

// idleRate is the enqueue rate of the idle-snapshot scenario, jobs per second.
const idleRate = 200

// idleSizeSlack: jobq.jobs counts as back to its size when it is at most this factor of the
// largest size seen in the baseline.
const idleSizeSlack = 1.1

// idleAfter is how long the scenario runs after the snapshot ends: the "within a minute".
const idleAfter = time.Minute

// idleCompactEvery is how often the scenario's `jobq compact` runs a round.
const idleCompactEvery = 10 * time.Second

// idleSampleEvery is how often the scenario reads the size of jobq.jobs.
const idleSampleEvery = 5 * time.Second

func idleEstimate(env *environment) time.Duration {
	if env.idle == 0 {
		return 0
	}
	return 2*env.idle + idleAfter + 20*time.Second
}

type idleSample struct {
	at         time.Duration
	phase      string
	jobsBytes  int64
	deadTuples int64
	liveTuples int64
}

func scenarioIdle(ctx context.Context, env *environment, rep *report) error {
	if env.idle == 0 {
		rep.mark("idle/skipped", "idle", "idle snapshot", "", "skipped: BENCH_IDLE=0")
		return errSkipped
	}
	if err := env.ensureJobq(ctx); err != nil {
		return err
	}
	admin := env.cl.url("postgres", "jobq")
	if err := execSQL(ctx, admin,
		"TRUNCATE jobq.jobs, jobq.job_history",
		`SELECT jobq.define_task('ping', 'system', description => 'jobq worker built-in: completes at once (smoke test).')`,
		"VACUUM ANALYZE jobq.jobs",
		"CHECKPOINT",
	); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	workers, err := startJobqWorkers(env, 1, 0, "idle")
	if err != nil {
		return err
	}
	w := workers[0]
	defer w.kill()
	// The tables' owner runs jobq compact next to the runner, as docs/operations.md says to:
	// it waits while the snapshot is open and gives jobq.jobs back its size once it ends.
	compact, err := startProc(env, "jobq-compact-idle", nil, nil, env.jobqBin, "compact", "--every", idleCompactEvery.String(),
		"--database-url", env.cl.url("jobq_migrator", "jobq"))
	if err != nil {
		return err
	}
	defer compact.kill()
	time.Sleep(2 * time.Second) // the worker declares its tasks and listens before the load starts
	if err := w.exited(); err != nil {
		return err
	}

	d := env.idle
	idleFrom, idleTo, end := d, 2*d, 2*d+idleAfter
	env.progress("idle snapshot: %d jobs/s; baseline %s, then a REPEATABLE READ transaction idle for %s, then %s without it",
		idleRate, d, d, idleAfter)
	var dbStart time.Time
	if err := conn.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&dbStart); err != nil {
		return fmt.Errorf("clock: %w", err)
	}
	start := time.Now()
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var enqueued atomic.Int64
	var loadErr error
	var once sync.Once
	var wg sync.WaitGroup
	const conns = 2
	for range conns {
		c, err := pgx.Connect(ctx, env.cl.url("worker_runtime", "jobq"))
		if err != nil {
			stopLoad()
			wg.Wait()
			return fmt.Errorf("connect: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close(context.WithoutCancel(ctx))
			// Each connection enqueues one job per tick; a tick missed while the database is
			// slow is dropped, and the achieved rate says so.
			t := time.NewTicker(time.Second * conns / idleRate)
			defer t.Stop()
			for {
				select {
				case <-loadCtx.Done():
					return
				case <-t.C:
				}
				if _, err := c.Exec(ctx, "SELECT jobq.enqueue(task => 'ping', payload => '{}'::jsonb)"); err != nil {
					once.Do(func() { loadErr = fmt.Errorf("enqueue: %w", err); stopLoad() })
					return
				}
				enqueued.Add(1)
			}
		}()
	}

	var samples []idleSample
	var idle *pgx.Conn
	sample := func(phase string) error {
		s := idleSample{at: time.Since(start), phase: phase}
		err := conn.QueryRow(ctx, `SELECT pg_total_relation_size('jobq.jobs'),
				coalesce((SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'jobq.jobs'::regclass), 0),
				coalesce((SELECT n_live_tup FROM pg_stat_user_tables WHERE relid = 'jobq.jobs'::regclass), 0)`).
			Scan(&s.jobsBytes, &s.deadTuples, &s.liveTuples)
		if err != nil {
			return fmt.Errorf("idle sample: %w", err)
		}
		samples = append(samples, s)
		return nil
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	next := time.Duration(0)
	lastPrint := time.Duration(0)
	var runErr error
	for {
		select {
		case <-ctx.Done():
			runErr = ctx.Err()
		case <-loadCtx.Done():
			runErr = loadErr
			if runErr == nil {
				runErr = errors.New("load stopped")
			}
		case <-tick.C:
		}
		if runErr != nil {
			break
		}
		if err := w.exited(); err != nil {
			runErr = err
			break
		}
		if err := compact.exited(); err != nil {
			runErr = fmt.Errorf("jobq compact: %w", err)
			break
		}
		el := time.Since(start)
		if idle == nil && el >= idleFrom && el < idleTo {
			idle, err = pgx.Connect(ctx, admin)
			if err == nil {
				_, err = idle.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ")
			}
			if err == nil {
				// The snapshot is taken by this first read; the row is the oldest finished job
				// (none yet only when BENCH_IDLE is a few seconds).
				var rows pgx.Rows
				if rows, err = idle.Query(ctx, "SELECT id FROM jobq.job_history ORDER BY id LIMIT 1"); err == nil {
					for rows.Next() {
					}
					rows.Close()
					err = rows.Err()
				}
			}
			if err != nil {
				runErr = fmt.Errorf("idle snapshot: %w", err)
				break
			}
			env.progress("idle snapshot: %s REPEATABLE READ transaction has read a row and stays open", el.Round(time.Second))
		}
		if idle != nil && el >= idleTo {
			_, _ = idle.Exec(ctx, "COMMIT")
			idle.Close(ctx)
			idle = nil
			env.progress("idle snapshot: %s the transaction ended", el.Round(time.Second))
		}
		phase := "baseline"
		switch {
		case el >= idleTo:
			phase = "after"
		case el >= idleFrom:
			phase = "snapshot open"
		}
		if el >= next || el >= end {
			if err := sample(phase); err != nil {
				runErr = err
				break
			}
			next += idleSampleEvery
			if el-lastPrint >= 30*time.Second {
				s := samples[len(samples)-1]
				env.progress("idle snapshot: %s of %s (%s), enqueued %s, jobq.jobs %.1f MB, dead tuples %s", el.Round(time.Second), end, phase,
					fmtNum(float64(enqueued.Load())), float64(s.jobsBytes)/1e6, fmtNum(float64(s.deadTuples)))
				lastPrint = el
			}
		}
		if el >= end {
			break
		}
	}
	stopLoad()
	wg.Wait()
	if idle != nil {
		_, _ = idle.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		idle.Close(context.WithoutCancel(ctx))
	}
	if runErr != nil {
		return runErr
	}
	total := enqueued.Load()
	err = waitFor(ctx, 5*time.Minute, 250*time.Millisecond, "idle-snapshot drain", func() (bool, error) {
		var left int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM jobq.jobs").Scan(&left)
		return left == 0, err
	})
	if err != nil {
		return err
	}
	if err := w.stop(40 * time.Second); err != nil {
		return err
	}
	var done int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded'").Scan(&done); err != nil {
		return fmt.Errorf("idle count: %w", err)
	}
	if done != total {
		return fmt.Errorf("idle snapshot: %d jobs enqueued but %d succeeded", total, done)
	}

	dur := fmt.Sprintf("%d jobs/s, snapshot open %s", idleRate, d)
	pct := func(q float64, from, to time.Duration) (float64, error) {
		return queryFloat(ctx, conn, `SELECT coalesce(percentile_cont($4::float8) WITHIN GROUP (ORDER BY extract(epoch FROM claimed_at - created_at) * 1000), 0)::float8
			FROM jobq.job_history WHERE created_at >= $1::timestamptz + $2 * interval '1 second' AND created_at < $1::timestamptz + $3 * interval '1 second'`,
			dbStart, from.Seconds(), to.Seconds(), q)
	}
	for _, p := range []struct {
		key, label string
		q          float64
		from, to   time.Duration
	}{
		{"idle/p50-baseline", "p50, baseline (no snapshot, " + d.String() + ")", 0.5, 0, idleFrom},
		{"idle/p99-baseline", "p99, baseline (no snapshot, " + d.String() + ")", 0.99, 0, idleFrom},
		{"idle/p50-during", "p50, while the snapshot stays open", 0.5, idleFrom, idleTo},
		{"idle/p99-during", "p99, while the snapshot stays open", 0.99, idleFrom, idleTo},
		{"idle/p99-after", "p99, the minute after it ends", 0.99, idleTo, end},
	} {
		v, err := pct(p.q, p.from, p.to)
		if err != nil {
			return err
		}
		rep.add(p.key, "idle", fmt.Sprintf("pickup delay %s (claimed_at − created_at), %s", p.label, dur), "ms", v)
	}
	var baseMax, openMax, after int64
	for _, s := range samples {
		switch s.phase {
		case "baseline":
			baseMax = max(baseMax, s.jobsBytes)
		case "snapshot open":
			openMax = max(openMax, s.jobsBytes)
		}
	}
	after = samples[len(samples)-1].jobsBytes // the sample at the end: a minute after the snapshot ended
	rep.add("idle/size-baseline", "idle", "largest size of jobq.jobs with its indexes in the baseline, "+dur, "MB", float64(baseMax)/1e6)
	rep.add("idle/size-during", "idle", "largest size of jobq.jobs with its indexes while the snapshot stays open, "+dur, "MB", float64(openMax)/1e6)
	rep.add("idle/size-after", "idle", "size of jobq.jobs with its indexes a minute after the snapshot ends, "+dur, "MB", float64(after)/1e6)
	rep.add("idle/rate", "idle", fmt.Sprintf("enqueue rate achieved (offered %d/s), ", idleRate)+dur, "jobs/s", float64(total)/end.Seconds())

	var b strings.Builder
	fmt.Fprintf(&b, "One `jobq worker` at its defaults, and `jobq compact --every %s` as the tables' owner (docs/operations.md), "+
		"while %d single enqueues per second arrive (2 connections, paced): a baseline of %s, "+
		"then a REPEATABLE READ transaction that has read a row of jobq.job_history stays open and idle for %s, then %s without it. "+
		"Size of jobq.jobs (pg_total_relation_size: table, indexes, TOAST) and its dead and live tuples (pg_stat_user_tables), every %s "+
		"(every 30 s shown). %s jobs enqueued in all.\n\n", idleCompactEvery, idleRate, d, d, idleAfter, idleSampleEvery, fmtNum(float64(total)))
	b.WriteString("| At | Phase | jobq.jobs MB | Dead tuples | Live tuples |\n|---|---|---:|---:|---:|\n")
	shown := time.Duration(-1)
	for i, s := range samples {
		if shown >= 0 && s.at-shown < 30*time.Second && i != len(samples)-1 {
			continue
		}
		shown = s.at
		fmt.Fprintf(&b, "| %s | %s | %.2f | %s | %s |\n", s.at.Round(time.Second), s.phase, float64(s.jobsBytes)/1e6,
			fmtNum(float64(s.deadTuples)), fmtNum(float64(s.liveTuples)))
	}
	rep.section("Idle snapshot timeline", b.String())
	return nil
}
