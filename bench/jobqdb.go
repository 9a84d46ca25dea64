package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ensureJobq installs jobq in database "jobq" once per run; the scenarios share it and empty its
// tables as they need.
func (env *environment) ensureJobq(ctx context.Context) error {
	if env.jobqReady {
		return nil
	}
	env.progress("installing jobq (jobq bootstrap, jobq migrate up) in database jobq")
	if err := env.cl.installJobq(ctx, env, "jobq"); err != nil {
		return err
	}
	env.jobqReady = true
	return nil
}

// profileJobq drains one more batch of jobs with pg_stat_statements tracking nested statements
// too, and reports the statements that took the most time: the engine's hot spots. The drain
// is not part of any figure.
func profileJobq(ctx context.Context, env *environment, rep *report) error {
	n := profileCount(env)
	env.progress("hot spots: one more jobq drain of %s jobs with pg_stat_statements.track = all", fmtNum(float64(n)))
	conn, err := pgx.Connect(ctx, env.cl.url("postgres", "jobq"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// Fill first, then measure the drain alone.
	if err := fillJobq(ctx, conn, n); err != nil {
		return err
	}
	intro := fmt.Sprintf("Over one drain of %s ping jobs by one `jobq worker` at its defaults, after the throughput runs.", fmtNum(float64(n)))
	return hotSpots(ctx, env, rep, "Hot spots of the engine: the drain (pg_stat_statements)", intro, func(ctx context.Context) error {
		workers, err := startJobqWorkers(env, 1, 0, "profile")
		if err != nil {
			return err
		}
		defer func() {
			for _, w := range workers {
				w.kill()
			}
		}()
		err = waitFor(ctx, drainTimeout(n), 250*time.Millisecond, "jobq drain (profile)", func() (bool, error) {
			if err := workers[0].exited(); err != nil {
				return false, err
			}
			var left int
			err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM jobq.jobs ORDER BY id LIMIT 1) s").Scan(&left)
			return left == 0, err
		})
		if err != nil {
			return err
		}
		return workers[0].stop(40 * time.Second)
	})
}

// hotSpots runs work with pg_stat_statements tracking the nested statements of the PL/pgSQL
// functions too (for the connections work opens; the counts are reset just before it), then adds
// a section titled title: intro, and the 15 statements that took the most time. What work
// measures is not part of any figure.
func hotSpots(ctx context.Context, env *environment, rep *report, title, intro string, work func(context.Context) error) error {
	admin := env.cl.url("postgres", "jobq")
	if err := execSQL(ctx, admin, "ALTER DATABASE jobq SET pg_stat_statements.track = 'all'"); err != nil {
		return err
	}
	defer func() {
		_ = execSQL(context.WithoutCancel(ctx), admin, "ALTER DATABASE jobq RESET pg_stat_statements.track")
	}()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
		return fmt.Errorf("reset pg_stat_statements: %w", err)
	}
	if err := work(ctx); err != nil {
		return err
	}
	table, err := topStatements(ctx, conn, intro)
	if err != nil {
		return err
	}
	rep.section(title, table)
	return nil
}

// profileCount is how many jobs the hot-spots drain runs: enough for steady figures, few enough
// to cost seconds.
func profileCount(env *environment) int { return min(throughputCounts(env).small, 20_000) }

// topStatements formats the 15 statements of database jobq that took the most time, as
// pg_stat_statements counted them since its last reset.
func topStatements(ctx context.Context, conn *pgx.Conn, intro string) (string, error) {
	rows, err := conn.Query(ctx, `SELECT s.toplevel, s.calls, s.total_exec_time, s.mean_exec_time, s.rows, s.query
		FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
		WHERE d.datname = 'jobq' AND s.query NOT ILIKE '%pg_stat_statements%'
		ORDER BY s.total_exec_time DESC LIMIT 15`)
	if err != nil {
		return "", fmt.Errorf("read pg_stat_statements: %w", err)
	}
	defer rows.Close()
	var b strings.Builder
	b.WriteString(intro + " pg_stat_statements with track = all: nested statements of the PL/pgSQL functions are listed too, " +
		"and a function's time includes theirs. Top 15 by total time:\n\n")
	b.WriteString("| Top level | Calls | Total ms | Mean ms | Rows | Statement |\n|---|---:|---:|---:|---:|---|\n")
	for rows.Next() {
		var top bool
		var calls, nrows int64
		var total, mean float64
		var query string
		if err := rows.Scan(&top, &calls, &total, &mean, &nrows, &query); err != nil {
			return "", fmt.Errorf("read pg_stat_statements: %w", err)
		}
		level := "nested"
		if top {
			level = "top"
		}
		q := strings.Join(strings.Fields(query), " ")
		if len(q) > 160 {
			q = q[:160] + "…"
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.3f | %s | `%s` |\n", level, fmtNum(float64(calls)), total, mean, fmtNum(float64(nrows)), strings.ReplaceAll(q, "|", "\\|"))
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("read pg_stat_statements: %w", err)
	}
	return b.String(), nil
}
