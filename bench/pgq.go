package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PgQ (Skytools' queue, Debian's postgresql-15-pgq3) as an event-log outer bound of the
// throughput scenario, shown without a target: a consumer reads batches of events between two
// ticks and finishes each batch in one call; no per-job row is updated or deleted (the event
// tables are rotated and truncated). It is not a job queue (no per-job lease, retry or
// history), which is why it has no target: it shows what an append-only design drains.
//
// The fill inserts events with pgq.insert_event in chunks of pgqTickEvery and ticks after each
// chunk with pgq.ticker, as pgqd would at its default queue_ticker_max_count (500 events): the
// harness calls the ticker itself instead of running pgqd, which only calls the same function
// on a timer, so that each batch holds one chunk whatever the machine's speed. The drain is one
// consumer on one connection: pgq.next_batch, every event of pgq.get_batch_events fetched to
// the client, pgq.finish_batch; jobs/s over its wall time.

// pgqTickEvery is the number of events between two ticks: pgq's queue_ticker_max_count default.
const pgqTickEvery = 500

// pgqControl is the extension's control file of Debian's package.
const pgqControl = "/usr/share/postgresql/15/extension/pgq.control"

// pgqVersion is the installed PgQ extension's default version, or why it is missing.
func pgqVersion() string {
	b, err := os.ReadFile(pgqControl)
	if err != nil {
		return "not installed (Debian package postgresql-15-pgq3)"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "default_version"); ok {
			return strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), "=")), "'") + " (postgresql-15-pgq3; the harness ticks, no pgqd)"
		}
	}
	return "unknown version"
}

// installPgq creates database pgq with the extension, the queue and its consumer.
func installPgq(ctx context.Context, env *environment) error {
	if _, err := os.Stat(pgqControl); err != nil {
		return fmt.Errorf("PgQ is not installed (apt-get install postgresql-15-pgq3; bench/run tries)")
	}
	if err := env.cl.createDatabase(ctx, "pgq"); err != nil {
		return err
	}
	return execSQL(ctx, env.cl.url("postgres", "pgq"),
		"CREATE EXTENSION pgq",
		"SELECT pgq.create_queue('bench')",
		"SELECT pgq.register_consumer('bench', 'drain')")
}

// drainPgq fills the queue with n events and drains them with one consumer: events/s.
func drainPgq(ctx context.Context, env *environment, n int) (float64, error) {
	conn, err := pgx.Connect(ctx, env.cl.url("postgres", "pgq"))
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// Start from an empty queue: consume whatever a failed earlier drain left.
	if _, err := pgqConsume(ctx, conn, -1); err != nil {
		return 0, err
	}
	env.meter.filling(ctx)
	for done := 0; done < n; {
		k := min(pgqTickEvery, n-done)
		if _, err := conn.Exec(ctx, "SELECT count(pgq.insert_event('bench', 'noop', '{}')) FROM generate_series(1, $1)", k); err != nil {
			return 0, fmt.Errorf("pgq.insert_event: %w", err)
		}
		// force_tick makes the ticker tick now whatever its thresholds.
		if _, err := conn.Exec(ctx, "SELECT pgq.force_tick('bench')"); err != nil {
			return 0, fmt.Errorf("pgq.force_tick: %w", err)
		}
		done += k
	}
	env.meter.filled(ctx)
	env.meter.draining(ctx)
	began := time.Now()
	got, err := pgqConsume(ctx, conn, n)
	if err != nil {
		return 0, err
	}
	secs := time.Since(began).Seconds()
	env.meter.drained(ctx)
	if got != n {
		return 0, fmt.Errorf("pgq consumer read %d of %d events", got, n)
	}
	return float64(n) / secs, nil
}

// pgqConsume reads batches until want events were read (or, want < 0, until no batch is left)
// and returns how many it read.
func pgqConsume(ctx context.Context, conn *pgx.Conn, want int) (int, error) {
	got := 0
	deadline := time.Now().Add(drainTimeout(max(want, 0)))
	for want < 0 || got < want {
		if time.Now().After(deadline) {
			return got, fmt.Errorf("pgq consumer read %d of %d events before its deadline", got, want)
		}
		var batch *int64
		if err := conn.QueryRow(ctx, "SELECT pgq.next_batch('bench', 'drain')").Scan(&batch); err != nil {
			return got, fmt.Errorf("pgq.next_batch: %w", err)
		}
		if batch == nil {
			if want < 0 {
				return got, nil
			}
			// The last tick is not there yet: the ticker makes it.
			if _, err := conn.Exec(ctx, "SELECT pgq.ticker('bench')"); err != nil {
				return got, fmt.Errorf("pgq.ticker: %w", err)
			}
			continue
		}
		rows, err := conn.Query(ctx, "SELECT ev_id, ev_type, ev_data FROM pgq.get_batch_events($1)", *batch)
		if err != nil {
			return got, fmt.Errorf("pgq.get_batch_events: %w", err)
		}
		for rows.Next() {
			var id int64
			var typ, data string
			if err := rows.Scan(&id, &typ, &data); err != nil {
				rows.Close()
				return got, fmt.Errorf("pgq event: %w", err)
			}
			got++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return got, fmt.Errorf("pgq.get_batch_events: %w", err)
		}
		if _, err := conn.Exec(ctx, "SELECT pgq.finish_batch($1)", *batch); err != nil {
			return got, fmt.Errorf("pgq.finish_batch: %w", err)
		}
	}
	return got, nil
}
