package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Writes per job: the WAL a system writes to enqueue and to drain a job, and the index entries
// it inserts, read over the throughput scenario's fill and drain at the target count, the same
// jobs for every system. WAL bytes are the difference of pg_current_wal_flush_lsn() before and
// after each phase (every commit flushes its WAL, so the flush position covers it); index
// entries are the index insert records of that WAL range (pg_walinspect's pg_get_wal_stats):
// B-tree leaf inserts and posting-list inserts, and page splits, each of which carries the
// entry that split the page (an upper-level split counts too: a slight over-count), plus the
// insert records of hash, GIN and GiST indexes. The cluster keeps its WAL (wal_keep_size) until
// it is read. The WAL is the cluster's: the harness's own polling writes none; a checkpoint or
// autovacuum during a drain counts (the fill is vacuumed and checkpointed first, so rarely).

// writeMeter measures one system's fill and drain; nil measures nothing (its methods are
// no-ops), so drains at counts without a meter call it unchanged.
type writeMeter struct {
	conn                           *pgx.Conn // database postgres, where pg_walinspect lives
	fillStart, fillEnd, drainStart string
	enqueueWAL, drainWAL           float64
	enqueueIdx, drainIdx           float64
	// enqueueKinds, drainKinds: the WAL of each phase by record type (where the bytes go).
	enqueueKinds, drainKinds []walKind
	err                      error
	jobs                     int
	// paths: for a system whose statements are told apart (jobq and the lifecycle floor), the
	// LIKE patterns of each path's top-level statements in pg_stat_statements (reset when the
	// drain starts); pathMs the milliseconds they took over the drain.
	paths  map[string][]string
	pathMs map[string]float64
}

// newWriteMeter connects to database postgres and makes sure pg_walinspect is there.
func newWriteMeter(ctx context.Context, env *environment, jobs int) (*writeMeter, error) {
	conn, err := pgx.Connect(ctx, env.cl.url("postgres", "postgres"))
	if err != nil {
		return nil, fmt.Errorf("write meter: %w", err)
	}
	for _, ext := range []string{"pg_walinspect", "pg_stat_statements"} {
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+ext); err != nil {
			conn.Close(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("write meter: %s: %w", ext, err)
		}
	}
	return &writeMeter{conn: conn, jobs: jobs}, nil
}

func (m *writeMeter) close(ctx context.Context) {
	if m != nil {
		m.conn.Close(context.WithoutCancel(ctx))
	}
}

func (m *writeMeter) lsn(ctx context.Context) string {
	var l string
	if m.err == nil {
		m.err = m.conn.QueryRow(ctx, "SELECT pg_current_wal_flush_lsn()::text").Scan(&l)
	}
	return l
}

// filling marks the start of the fill; filled its end.
func (m *writeMeter) filling(ctx context.Context) {
	if m != nil {
		m.fillStart = m.lsn(ctx)
	}
}

func (m *writeMeter) filled(ctx context.Context) {
	if m != nil {
		m.fillEnd = m.lsn(ctx)
		m.enqueueWAL, m.enqueueIdx = m.between(ctx, m.fillStart, m.fillEnd)
		m.enqueueKinds = m.kinds(ctx, m.fillStart, m.fillEnd)
	}
}

// draining marks the start of the drain (after the fill was vacuumed and checkpointed);
// drained its end (every job done, before the workers stop).
func (m *writeMeter) draining(ctx context.Context) {
	if m != nil {
		if len(m.paths) > 0 && m.err == nil {
			_, m.err = m.conn.Exec(ctx, "SELECT pg_stat_statements_reset()")
		}
		m.drainStart = m.lsn(ctx)
	}
}

func (m *writeMeter) drained(ctx context.Context) {
	if m != nil {
		end := m.lsn(ctx)
		m.drainWAL, m.drainIdx = m.between(ctx, m.drainStart, end)
		m.drainKinds = m.kinds(ctx, m.drainStart, end)
		m.pathMs = map[string]float64{}
		for path, patterns := range m.paths {
			if m.err == nil {
				var ms float64
				m.err = m.conn.QueryRow(ctx, `SELECT coalesce(sum(total_exec_time), 0)::float8 FROM pg_stat_statements
					WHERE toplevel AND query LIKE ANY ($1)`, patterns).Scan(&ms)
				m.pathMs[path] = ms
			}
		}
	}
}

// pathPatterns are the statements of each path: jobq's functions as the runner calls them, and
// the lifecycle floor's statements (lifecycle.go).
var pathPatterns = map[string]map[string][]string{
	"jobq": {
		"claim":    {"%jobq.claim_job(%"},
		"complete": {"%jobq.complete_jobs(%"},
	},
	"lifecycle": {
		"claim":    {"%FROM bench.lf_jobs%FOR UPDATE SKIP LOCKED%", "%UPDATE bench.lf_jobs%"},
		"complete": {"%DELETE FROM bench.lf_jobs%"},
	},
}

// indexInsertRecords are the WAL record types (pg_walinspect's resource_manager/record_type)
// counted as index entries.
var indexInsertRecords = []string{
	"Btree/INSERT_LEAF", "Btree/INSERT_POST", "Btree/SPLIT_L", "Btree/SPLIT_R",
	"Hash/INSERT", "Gin/INSERT", "Gist/PAGE_UPDATE",
}

// between is the WAL bytes from start to end and the index insert records in it.
func (m *writeMeter) between(ctx context.Context, start, end string) (float64, float64) {
	if m.err != nil {
		return 0, 0
	}
	var bytes, idx float64
	m.err = m.conn.QueryRow(ctx, `SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::float8,
		coalesce((SELECT sum(count) FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true)
		          WHERE "resource_manager/record_type" = ANY ($3)), 0)::float8`,
		start, end, indexInsertRecords).Scan(&bytes, &idx)
	if m.err != nil {
		m.err = fmt.Errorf("WAL from %s to %s: %w", start, end, m.err)
	}
	return bytes, idx
}

// walKind is one WAL record type's share of a phase: its records and bytes (pg_walinspect's
// combined_size: record headers and full-page images included).
type walKind struct {
	kind           string
	records, bytes float64
}

// kinds is the WAL from start to end by record type, largest first.
func (m *writeMeter) kinds(ctx context.Context, start, end string) []walKind {
	if m.err != nil {
		return nil
	}
	rows, err := m.conn.Query(ctx, `SELECT "resource_manager/record_type", count::float8, combined_size::float8
		FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) WHERE count > 0 ORDER BY combined_size DESC`, start, end)
	if err != nil {
		m.err = fmt.Errorf("WAL record types from %s to %s: %w", start, end, err)
		return nil
	}
	var out []walKind
	for rows.Next() {
		var k walKind
		if err := rows.Scan(&k.kind, &k.records, &k.bytes); err != nil {
			m.err = err
			return nil
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		m.err = err
	}
	return out
}

// profile is the markdown table of where a system's WAL per job goes: per phase, the record
// types that make up 99 % of its bytes, with records and bytes per job and their share.
func (m *writeMeter) profile() string {
	n := float64(m.jobs)
	var b strings.Builder
	b.WriteString("| Phase | WAL record type | Records/job | B/job | Share |\n|---|---|---:|---:|---:|\n")
	for _, ph := range []struct {
		name  string
		kinds []walKind
	}{{"enqueue", m.enqueueKinds}, {"drain", m.drainKinds}} {
		var total, shown float64
		for _, k := range ph.kinds {
			total += k.bytes
		}
		for _, k := range ph.kinds {
			if total > 0 && shown >= 0.99*total {
				break
			}
			shown += k.bytes
			fmt.Fprintf(&b, "| %s | %s | %.2f | %.1f | %.0f %% |\n", ph.name, k.kind, k.records/n, k.bytes/n, 100*k.bytes/total)
		}
	}
	return b.String()
}

// record adds the meter's figures per job to the report under system, and the first time it
// sees the system, the profile of its WAL by record type.
func (m *writeMeter) record(rep *report, system, label string) error {
	if m.err != nil {
		return m.err
	}
	if m.fillEnd == "" || m.drainStart == "" {
		return fmt.Errorf("write meter of %s: the drain did not mark its fill and drain", system)
	}
	n := float64(m.jobs)
	for _, v := range []struct {
		phase, what, unit, measure string
		value                      float64
	}{
		{"enqueue", "wal", "B/job", "WAL to enqueue", m.enqueueWAL},
		{"drain", "wal", "B/job", "WAL to drain", m.drainWAL},
		{"total", "wal", "B/job", "WAL to enqueue and drain", m.enqueueWAL + m.drainWAL},
		{"enqueue", "idx", "entries/job", "index entries to enqueue", m.enqueueIdx},
		{"drain", "idx", "entries/job", "index entries to drain", m.drainIdx},
		{"total", "idx", "entries/job", "index entries to enqueue and drain", m.enqueueIdx + m.drainIdx},
	} {
		rep.add(writesKey(system, v.phase, v.what), "writes", fmt.Sprintf("%s a job, %s, %s jobs", v.measure, label, fmtNum(n)), v.unit, v.value/n)
	}
	// One profile per system (its first configuration measured): the record types do not change
	// with a peer's process or client count.
	family := strings.SplitN(system, "-", 2)[0]
	if family == "bound" {
		family = system // each bound is a design of its own
	}
	if rep.first("wal-profile/" + family) {
		rep.section("Where the WAL goes: "+label, "From pg_walinspect's pg_get_wal_stats over the fill and the drain at the target count, first run.\n\n"+m.profile())
	}
	for _, path := range []string{"claim", "complete"} {
		if ms, ok := m.pathMs[path]; ok {
			what := map[string]string{"claim": "the claim (pick and lease)", "complete": "the completion (to history)"}[path]
			rep.add(pathKey(system, path), "paths", fmt.Sprintf("database time of %s a job (pg_stat_statements, top-level statements), %s, %s jobs", what, label, fmtNum(n)),
				"µs/job", 1000*ms/n)
		}
	}
	return nil
}

// pathKey is the row key of a system's database time per job on a path (claim, complete).
func pathKey(system, path string) string { return "path/" + system + "/" + path }
