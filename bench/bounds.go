package main

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The WAL bounds: what a job's WAL would be in designs jobq could adopt that keep every attempt
// where the job already is (history in place: the completion turns the leased row into its
// finished row, no DELETE and no history INSERT), the direction issue 33 names for halving the
// writes. They carry no target; they weigh the WAL target (≤ 2 × the minimal queue's) against
// the lease every job must commit before its handler runs. Each is measured over the throughput
// scenario's target count with the same write meter as jobq and its peers, on one connection in
// a Go loop (the WAL of a statement does not depend on how many clients run it), in jobq's
// batches, and needs no runner:
//
//   - bound-inplace: copies of jobq.jobs and jobq.leases as the lifecycle floor makes them (their
//     columns, defaults, constraints less the two that allow only live states, indexes and
//     fillfactor). The claim is the lifecycle floor's (pick in the claim index's order, lease
//     columns and a fresh token by id, the claim's receipt); the completion updates the row by
//     id and lease token to succeeded, clearing the lease. Neither update changes an indexed
//     column, so both are HOT while the row's page has room for the new version (fillfactor
//     40, as jobq.jobs): jobq's schema with history kept in place. An update that finds no
//     room is not HOT and writes its index entries, counted as the design would write them.
//   - bound-lean: jobq.jobs' columns, defaults and generated column with its primary key as the
//     only index and no receipt; the same claim and completion, picked in id order: the least a
//     lease queue with jobq's row can write.
//
// The claims pick from a position (the last row they took), as jobq's runner does, so that the
// finished rows left in place are not stepped over again and again.

// boundBatch is the claim and completion batch of the bounds: the lifecycle floor's.
const boundBatch = lifecycleBatch

// walBound is one of the designs measured.
type walBound struct {
	name  string // bound-inplace, bound-lean
	label string
	lean  bool // the primary key alone, no receipt, picked in id order
}

var walBounds = []walBound{
	{"bound-inplace", fmt.Sprintf("WAL bound (no target): jobq's tables with history kept in place, claim %d with lease + token + receipt, completion updating the row to succeeded, one connection", boundBatch), false},
	{"bound-lean", fmt.Sprintf("WAL bound (no target): jobq's row with its primary key alone, claim %d with lease + token, completion updating the row to succeeded, one connection", boundBatch), true},
}

// The bounds' statements. $1 of a pick is the batch, the rest the position: the last row taken.
const (
	boundPickInplace = `SELECT coalesce(array_agg(p.id ORDER BY p.priority, p.run_at, p.id), '{}'),
       (array_agg(p.priority ORDER BY p.priority DESC, p.run_at DESC, p.id DESC))[1],
       (array_agg(p.run_at ORDER BY p.priority DESC, p.run_at DESC, p.id DESC))[1],
       (array_agg(p.id ORDER BY p.priority DESC, p.run_at DESC, p.id DESC))[1]
FROM (SELECT id, priority, run_at FROM bench.wb_jobs
      WHERE ready AND state IN ('queued', 'retry_pending') AND queue = 'default' AND run_at <= now()
        AND (priority, run_at, id) > ($2::smallint, $3::timestamptz, $4::bigint)
      ORDER BY priority, run_at, id
      LIMIT $1
      FOR UPDATE SKIP LOCKED) AS p`
	boundPickLean = `SELECT coalesce(array_agg(p.id ORDER BY p.id), '{}'), max(p.id)
FROM (SELECT id FROM bench.wb_jobs
      WHERE state IN ('queued', 'retry_pending') AND run_at <= now() AND id > $2::bigint
      ORDER BY id
      LIMIT $1
      FOR UPDATE SKIP LOCKED) AS p`
	// The completion: the leased row becomes the finished row, by id and lease token.
	boundComplete = `UPDATE bench.wb_jobs j
SET state = 'succeeded', locked_by = NULL, lease_token = NULL, heartbeat_at = NULL,
    lease_expires_at = NULL, deadline_at = NULL, updated_at = now()
FROM (SELECT c.id, c.token FROM unnest($1::bigint[], $2::uuid[]) AS c(id, token)) AS c
WHERE j.id = ANY ($1::bigint[]) AND j.id = c.id AND j.lease_token = c.token
  AND j.locked_by IS NOT NULL AND j.lease_expires_at IS NOT NULL`
)

// boundLease is the lifecycle floor's lease by id ($1) on bench.wb_jobs, with its receipt into
// bench.wb_leases when receipt is set, returning the ids and tokens leased.
func boundLease(receipt bool) string {
	q := lifecycleClaimed
	if receipt {
		q += lifecycleReceipt
	}
	q += "\nSELECT coalesce(array_agg(id ORDER BY id), '{}'), coalesce(array_agg(lease_token ORDER BY id), '{}') FROM claimed"
	return strings.NewReplacer("bench.lf_jobs", "bench.wb_jobs", "bench.lf_leases", "bench.wb_leases",
		"{client}", "'1'", "{picked}", "$1::bigint[]").Replace(q)
}

// prepareBoundTables (re)creates bench.wb_jobs (and, for bound-inplace, bench.wb_leases) for
// bound b in database jobq.
func prepareBoundTables(ctx context.Context, conn *pgx.Conn, b walBound) error {
	if !b.lean {
		for copyOf, table := range map[string]string{"bench.wb_jobs": "jobq.jobs", "bench.wb_leases": "jobq.leases"} {
			if err := copyTable(ctx, conn, copyOf, table); err != nil {
				return err
			}
		}
		// The two constraints that keep finished rows out of jobq.jobs (LIKE keeps their names).
		if _, err := conn.Exec(ctx, `ALTER TABLE bench.wb_jobs DROP CONSTRAINT jobs_state_check, DROP CONSTRAINT jobs_lease_matches_state`); err != nil {
			return fmt.Errorf("%s: constraints of live states: %w", b.name, err)
		}
		return nil
	}
	for _, q := range []string{
		"CREATE SCHEMA IF NOT EXISTS bench",
		"DROP TABLE IF EXISTS bench.wb_jobs, bench.wb_leases",
		"CREATE TABLE bench.wb_jobs (LIKE jobq.jobs INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING IDENTITY)",
		"ALTER TABLE bench.wb_jobs ADD PRIMARY KEY (id)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %s: %w", b.name, q, err)
		}
	}
	return copyStorage(ctx, conn, "bench.wb_jobs", "jobq.jobs")
}

// drainWALBound fills bound b's table with n due jobs and drains it, claim by claim, through
// env.meter; it checks that every job ended succeeded in place.
func drainWALBound(ctx context.Context, env *environment, n int, b walBound) error {
	if err := env.ensureJobq(ctx); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, env.cl.url("postgres", "jobq"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := prepareBoundTables(ctx, conn, b); err != nil {
		return err
	}
	env.meter.filling(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO bench.wb_jobs (task, payload, max_attempts) SELECT 'ping', '{}'::jsonb, 25 FROM generate_series(1, $1)`, n); err != nil {
		return fmt.Errorf("fill bench.wb_jobs: %w", err)
	}
	env.meter.filled(ctx)
	if err := settle(ctx, conn, "bench.wb_jobs"); err != nil {
		return err
	}
	env.meter.draining(ctx)
	lease := boundLease(!b.lean)
	// The position after the last row taken, from the first in claim order: (priority, run_at,
	// id) in the claim index's order for bound-inplace, the id for bound-lean.
	var (
		prio  int16              = math.MinInt16
		runAt pgtype.Timestamptz = pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
		last  int64              = math.MinInt64
		done  int
	)
	pick := func(tx pgx.Tx) ([]int64, error) {
		var picked []int64
		var l *int64
		if b.lean {
			if err := tx.QueryRow(ctx, boundPickLean, boundBatch, last).Scan(&picked, &l); err != nil {
				return nil, err
			}
		} else {
			var p *int16
			var r pgtype.Timestamptz
			if err := tx.QueryRow(ctx, boundPickInplace, boundBatch, prio, runAt, last).Scan(&picked, &p, &r, &l); err != nil {
				return nil, err
			}
			if p != nil && r.Valid {
				prio, runAt = *p, r
			}
		}
		if l != nil {
			last = *l
		}
		return picked, nil
	}
	for {
		var ids []int64
		var tokens []string
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
				return err
			}
			picked, err := pick(tx)
			if err != nil {
				return fmt.Errorf("pick: %w", err)
			}
			if len(picked) == 0 {
				return nil
			}
			return tx.QueryRow(ctx, lease, picked).Scan(&ids, &tokens)
		})
		if err != nil {
			return fmt.Errorf("%s: claim: %w", b.name, err)
		}
		if len(ids) == 0 {
			break
		}
		tag, err := conn.Exec(ctx, boundComplete, ids, tokens)
		if err != nil {
			return fmt.Errorf("%s: complete: %w", b.name, err)
		}
		if int(tag.RowsAffected()) != len(ids) {
			return fmt.Errorf("%s: completed %d of the %d jobs claimed", b.name, tag.RowsAffected(), len(ids))
		}
		done += len(ids)
	}
	env.meter.drained(ctx)
	var succeeded int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM bench.wb_jobs WHERE state = 'succeeded'`).Scan(&succeeded); err != nil {
		return fmt.Errorf("%s: rows: %w", b.name, err)
	}
	if done != n || succeeded != int64(n) {
		return fmt.Errorf("%s: %d of %d jobs completed, %d succeeded in place", b.name, done, n, succeeded)
	}
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS bench.wb_jobs, bench.wb_leases"); err != nil {
		return fmt.Errorf("drop bound tables: %w", err)
	}
	return nil
}
