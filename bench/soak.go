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

// soakRate is the soak's enqueue rate in jobs per second.
const soakRate = 500

// soakSample is one look at the database during the soak.
type soakSample struct {
	at          time.Duration
	idleTx      bool
	deadTuples  int64
	liveTuples  int64
	jobsBytes   int64   // jobq.jobs with its indexes and TOAST
	indexBytes  int64   // indexes of jobq.jobs
	histBytes   int64   // jobq.job_history, all of it
	claimCalls  int64   // calls of claim_job since the previous sample (pg_stat_statements, reset at each sample)
	claimMeanMS float64 // their mean execution time
	claimMaxMS  float64 // and the longest
	oldestTxS   float64 // age of the oldest open transaction of a client of database jobq, in seconds
	xminAge     int64   // age in transaction ids of the oldest xmin held by a client session of the cluster
}

// scenarioSoak enqueues at a fixed rate (500 jobs/s, single enqueues) while one jobq worker at
// its defaults drains, for BENCH_SOAK; for half of it, from a fifth of the way in, a transaction
// stays open and idle (BEGIN; SELECT txid_current()), holding back vacuum. It reports per window
// (a tenth of the soak) the pickup delay p50/p99/max (claimed_at − created_at, from the
// database), calls, mean and longest time of claim_job (pg_stat_statements), the size and dead
// tuples of jobq.jobs and the age of the oldest open transaction.
func scenarioSoak(ctx context.Context, env *environment, rep *report) error {
	if env.soak == 0 {
		rep.mark("soak/skipped", "soak", "soak", "", "skipped: BENCH_SOAK=0")
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

	workers, err := startJobqWorkers(env, 1, 0, "soak")
	if err != nil {
		return err
	}
	w := workers[0]
	defer w.kill()
	// Let the worker declare its tasks and start listening before the load begins.
	time.Sleep(2 * time.Second)
	if err := w.exited(); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
		return fmt.Errorf("reset pg_stat_statements: %w", err)
	}

	d := env.soak
	window := max(d/10, 5*time.Second)
	idleFrom, idleTo := d/5, d/5+d/2
	env.progress("soak: %s at %d jobs/s, idle transaction from %s to %s, a sample every %s",
		d, soakRate, idleFrom, idleTo, window)
	var dbStart time.Time
	if err := conn.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&dbStart); err != nil {
		return fmt.Errorf("clock: %w", err)
	}
	start := time.Now()
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()

	// The pacer hands out one token per job due; four connections enqueue them.
	tokens := make(chan struct{}, soakRate*60)
	var sent, enqueued, dropped atomic.Int64
	var loadErr error
	var loadErrOnce sync.Once
	failLoad := func(err error) {
		loadErrOnce.Do(func() { loadErr = err; stopLoad() })
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(tokens)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-loadCtx.Done():
				return
			case <-t.C:
				due := int64(time.Since(start).Seconds() * soakRate)
				for sent.Load() < due {
					select {
					case tokens <- struct{}{}:
						sent.Add(1)
					default:
						// The enqueuers are a minute behind: the database is saturated. The jobs
						// not handed out are dropped, and the achieved rate says so.
						dropped.Add(due - sent.Load())
						sent.Store(due)
					}
				}
			}
		}
	}()
	for range 4 {
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
			for range tokens {
				// Not loadCtx: a statement cancelled after its commit would be miscounted.
				if _, err := c.Exec(ctx, "SELECT jobq.enqueue(task => 'ping', payload => '{}'::jsonb)"); err != nil {
					failLoad(fmt.Errorf("enqueue: %w", err))
					return
				}
				enqueued.Add(1)
			}
		}()
	}

	var samples []soakSample
	var idle *pgx.Conn
	sample := func() error {
		s := soakSample{at: time.Since(start), idleTx: idle != nil}
		err := conn.QueryRow(ctx, `WITH claim AS (
				SELECT coalesce(sum(s.calls), 0)::bigint AS calls,
				       coalesce(sum(s.total_exec_time) / nullif(sum(s.calls), 0), 0)::float8 AS mean,
				       coalesce(max(s.max_exec_time), 0)::float8 AS longest
				FROM pg_stat_statements s
				WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = 'jobq') AND s.toplevel AND s.query LIKE '%jobq.claim_job(%')
			SELECT coalesce(st.n_dead_tup, 0), coalesce(st.n_live_tup, 0),
				pg_total_relation_size('jobq.jobs'), pg_indexes_size('jobq.jobs'), pg_total_relation_size('jobq.job_history'),
				claim.calls, claim.mean, claim.longest,
				coalesce((SELECT max(extract(epoch FROM clock_timestamp() - a.xact_start)) FROM pg_stat_activity a
					WHERE a.datname = 'jobq' AND a.backend_type = 'client backend' AND a.xact_start IS NOT NULL AND a.pid <> pg_backend_pid()), 0)::float8,
				coalesce((SELECT max(age(a.backend_xmin)) FROM pg_stat_activity a
					WHERE a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()), 0)::bigint
			FROM claim LEFT JOIN pg_stat_user_tables st ON st.relid = 'jobq.jobs'::regclass`).
			Scan(&s.deadTuples, &s.liveTuples, &s.jobsBytes, &s.indexBytes, &s.histBytes, &s.claimCalls, &s.claimMeanMS, &s.claimMaxMS, &s.oldestTxS, &s.xminAge)
		if err != nil {
			return fmt.Errorf("soak sample: %w", err)
		}
		// Each window's claim_job figures start from zero.
		if _, err := conn.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
			return fmt.Errorf("reset pg_stat_statements: %w", err)
		}
		samples = append(samples, s)
		return nil
	}
	if err := sample(); err != nil {
		stopLoad()
		wg.Wait()
		return err
	}
	next := window
	tick := time.NewTicker(250 * time.Millisecond)
	var runErr error
loop:
	for {
		select {
		case <-ctx.Done():
			runErr = ctx.Err()
			break loop
		case <-loadCtx.Done():
			runErr = loadErr
			if runErr == nil {
				runErr = errors.New("load stopped")
			}
			break loop
		case <-tick.C:
		}
		el := time.Since(start)
		if err := w.exited(); err != nil {
			runErr = err
			break
		}
		// Sample before opening or ending the idle transaction: a window's figures are those
		// of its end, with the transaction as it was during the window.
		if el >= next {
			if err := sample(); err != nil {
				runErr = err
				break
			}
			last := samples[len(samples)-1]
			env.progress("soak: %s of %s, enqueued %s, dead tuples %s, jobq.jobs %.1f MB, oldest transaction %.0f s", el.Round(time.Second), d,
				fmtNum(float64(enqueued.Load())), fmtNum(float64(last.deadTuples)), float64(last.jobsBytes)/1e6, last.oldestTxS)
			next += window
		}
		if idle == nil && el >= idleFrom && el < idleTo {
			idle, err = pgx.Connect(ctx, admin)
			if err == nil {
				_, err = idle.Exec(ctx, "BEGIN")
			}
			if err == nil {
				_, err = idle.Exec(ctx, "SELECT txid_current()")
			}
			if err != nil {
				runErr = fmt.Errorf("idle transaction: %w", err)
				break
			}
			env.progress("soak: %s idle transaction opened", el.Round(time.Second))
		}
		if idle != nil && el >= idleTo {
			_, _ = idle.Exec(ctx, "ROLLBACK")
			idle.Close(ctx)
			idle = nil
			env.progress("soak: %s idle transaction ended", el.Round(time.Second))
		}
		if el >= d {
			break
		}
	}
	tick.Stop()
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
	// The worker finishes what is left, then stops.
	err = waitFor(ctx, 10*time.Minute, 250*time.Millisecond, "soak drain", func() (bool, error) {
		var left int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM jobq.jobs").Scan(&left)
		return left == 0, err
	})
	if err != nil {
		return err
	}
	rss, err := w.peakRSSMB()
	if err != nil {
		return err
	}
	if err := w.stop(40 * time.Second); err != nil {
		return err
	}

	type windowStats struct {
		n             int
		p50, p99, max float64
	}
	stats := map[int]windowStats{}
	ws := window.Seconds()
	rows, err := conn.Query(ctx, `SELECT floor(extract(epoch FROM created_at - $1::timestamptz) / $2)::int AS w, count(*),
			percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM claimed_at - created_at) * 1000),
			percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM claimed_at - created_at) * 1000),
			max(extract(epoch FROM claimed_at - created_at) * 1000)::float8
		FROM jobq.job_history WHERE state = 'succeeded' GROUP BY 1 ORDER BY 1`, dbStart, ws)
	if err != nil {
		return fmt.Errorf("soak pickup per window: %w", err)
	}
	for rows.Next() {
		var i int
		var st windowStats
		if err := rows.Scan(&i, &st.n, &st.p50, &st.p99, &st.max); err != nil {
			rows.Close()
			return fmt.Errorf("soak pickup per window: %w", err)
		}
		stats[i] = st
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("soak pickup per window: %w", err)
	}
	var done int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded'").Scan(&done); err != nil {
		return fmt.Errorf("soak count: %w", err)
	}
	if done != total {
		return fmt.Errorf("soak: %d jobs enqueued but %d succeeded", total, done)
	}

	// Phase figures: pickup p99 before, during and after the idle transaction.
	phase := func(from, to time.Duration) (float64, error) {
		return queryFloat(ctx, conn, `SELECT (percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM claimed_at - created_at) * 1000))::float8
			FROM jobq.job_history WHERE created_at >= $1::timestamptz + $2 * interval '1 second' AND created_at < $1::timestamptz + $3 * interval '1 second'`,
			dbStart, from.Seconds(), to.Seconds())
	}
	dur := fmt.Sprintf("%s soak at %d jobs/s", d, soakRate)
	for _, p := range []struct {
		key, label string
		from, to   time.Duration
	}{
		{"soak/p99-before", "before the idle transaction", 0, idleFrom},
		{"soak/p99-during", "while a transaction stays idle", idleFrom, idleTo},
		{"soak/p99-after", "after it ends", idleTo, d},
	} {
		v, err := phase(p.from, p.to)
		if err != nil {
			return err
		}
		rep.add(p.key, "soak", fmt.Sprintf("pickup delay p99 (claimed_at − created_at), %s, %s", p.label, dur), "ms", v)
	}
	maxDead, maxSize, maxIdx := int64(0), int64(0), int64(0)
	var b strings.Builder
	fmt.Fprintf(&b, "One `jobq worker` at its defaults drains while %d single enqueues per second arrive (4 connections) for %s; "+
		"an idle transaction (BEGIN; SELECT txid_current()) is open from %s to %s. Pickup delay is claimed_at − created_at of each job "+
		"(database clock), grouped by the window its job was created in; claim_job mean is the mean execution time of the "+
		"runner's claim_job statement in the window, and max its longest call (pg_stat_statements, reset at every window's end); "+
		"oldest tx is the age of the oldest open transaction of a client session in database jobq (autovacuum's own are left out) and "+
		"xmin age the age in transaction ids of the oldest snapshot a client session holds, both at the window's end, like the sizes and dead tuples. "+
		"%s jobs enqueued in all, %s not enqueued because the enqueuers were a minute behind; peak RSS of the worker %.1f MB.\n\n",
		soakRate, d, idleFrom, idleTo, fmtNum(float64(total)), fmtNum(float64(dropped.Load())), rss)
	b.WriteString("| Window | Idle tx | Jobs created | Pickup p50 ms | Pickup p99 ms | Pickup max ms | claim_job calls | claim_job mean ms | claim_job max ms | Oldest tx s | xmin age | jobq.jobs dead tuples | jobq.jobs live tuples | jobq.jobs total MB | its indexes MB | job_history MB |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := 1; i < len(samples); i++ {
		s, prev := samples[i], samples[i-1]
		st := stats[i-1]
		// The window counts as "open" when the idle transaction covered most of it.
		idleMark := ""
		if min(s.at, idleTo)-max(prev.at, idleFrom) > (s.at-prev.at)/2 {
			idleMark = "open"
		}
		fmt.Fprintf(&b, "| %s–%s | %s | %s | %.2f | %.2f | %.2f | %s | %.3f | %.1f | %.0f | %s | %s | %s | %.1f | %.1f | %.1f |\n",
			prev.at.Round(time.Second), s.at.Round(time.Second), idleMark, fmtNum(float64(st.n)), st.p50, st.p99, st.max,
			fmtNum(float64(s.claimCalls)), s.claimMeanMS, s.claimMaxMS, s.oldestTxS, fmtNum(float64(s.xminAge)),
			fmtNum(float64(s.deadTuples)), fmtNum(float64(s.liveTuples)), float64(s.jobsBytes)/1e6, float64(s.indexBytes)/1e6, float64(s.histBytes)/1e6)
		maxDead = max(maxDead, s.deadTuples)
		maxSize = max(maxSize, s.jobsBytes)
		maxIdx = max(maxIdx, s.indexBytes)
	}
	rep.section("Soak timeline", b.String())
	rep.add("soak/dead-max", "soak", "most dead tuples seen in jobq.jobs (pg_stat_user_tables), "+dur, "tuples", float64(maxDead))
	rep.add("soak/size-max", "soak", "largest size of jobq.jobs with its indexes, "+dur, "MB", float64(maxSize)/1e6)
	rep.add("soak/index-max", "soak", "largest size of the indexes of jobq.jobs, "+dur, "MB", float64(maxIdx)/1e6)
	rep.add("soak/rss", "soak", "peak RSS (VmHWM) of the worker, "+dur, "MB", rss)
	rep.add("soak/rate", "soak", fmt.Sprintf("enqueue rate achieved (offered %d/s; falls short when the database is saturated), ", soakRate)+dur, "jobs/s", float64(total)/d.Seconds())
	return nil
}
