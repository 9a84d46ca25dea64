package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/migrate"
	"github.com/jobqdev/jobq/operator"
)

// jobq doctor: the checks an operator runs after an install, an upgrade or a change by hand.
// Each prints one line, OK or FAIL with the reason; any FAIL makes the exit status 1.

type doctorCmd struct {
	connFlags
	JSON bool `name:"json" help:"print the checks as JSON ({\"checks\": [{\"name\", \"ok\", \"problems\"}], \"failed\"}) instead of lines"`
}

// doctorResult is one check's outcome, as --json prints it.
type doctorResult struct {
	Name     string   `json:"name"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
}

// doctorCheck is one check: its name and a function returning the problems it found.
type doctorCheck struct {
	name string
	run  func(ctx context.Context, conn *pgx.Conn) ([]string, error)
}

// roleAttrs are the attributes bootstrap/001_roles.sql gives each role doctor checks.
type roleAttrs struct{ login, super, bypassRLS bool }

var expectedRoles = map[string]roleAttrs{
	"jobq_migrator":       {login: true},
	"worker_runtime":      {login: true},
	"worker_fanout_owner": {bypassRLS: true},
	"jobq_app":            {},
	"jobq_app_gate":       {},
	"jobq_operator":       {},
	"jobq_viewer":         {},
	"jobq_dashboard":      {login: true},
	"jobq_waker":          {login: true},
}

// runtimeRoles are the roles that must not execute an internal (_-prefixed) function.
var runtimeRoles = []string{"worker_runtime", "jobq_app", "jobq_operator"}

var doctorChecks = []doctorCheck{
	{"roles", checkRoles},
	{"row level security", queryProblems(`SELECT format('table jobq.%I has store_id but row level security is %s', c.relname,
			CASE WHEN NOT c.relrowsecurity THEN 'disabled' ELSE 'not forced' END)
		FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attname = 'store_id' AND NOT a.attisdropped
		WHERE n.nspname = 'jobq' AND c.relkind IN ('r', 'p') AND NOT (c.relrowsecurity AND c.relforcerowsecurity)
		ORDER BY c.relname`)},
	{"security definer search_path", queryProblems(`SELECT format('SECURITY DEFINER function %s does not pin search_path = pg_catalog, pg_temp', p.oid::regprocedure)
		FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'jobq' AND p.prosecdef
		  AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
		ORDER BY 1`)},
	{"public execute", queryProblems(`SELECT format('function %s is executable by PUBLIC', p.oid::regprocedure)
		FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'jobq' AND EXISTS (
			SELECT 1 FROM pg_catalog.aclexplode(coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
			WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE')
		ORDER BY 1`)},
	{"internal functions", queryProblems(`SELECT format('role %s may execute internal function %s', r.rolname, p.oid::regprocedure)
		FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		CROSS JOIN pg_catalog.pg_roles r
		WHERE n.nspname = 'jobq' AND p.proname LIKE '\_%' AND r.rolname = ANY ($1)
		  AND pg_catalog.has_function_privilege(r.oid, p.oid, 'EXECUTE')
		ORDER BY 1`, runtimeRoles)},
	{"schema version", checkSchema},
	{"settings", checkSettings},
	{"leader lease", queryProblems(`SELECT format('leader %s holds a lease that expired %s ago (epoch %s); no runner has taken over',
			l.holder, date_trunc('second', now() - l.lease_expires_at), l.epoch)
		FROM jobq.leader l WHERE l.holder IS NOT NULL AND l.lease_expires_at < now()`)},
}

func (c *doctorCmd) Run(e *env) error {
	var results []doctorResult
	failed := 0
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		for _, ch := range doctorChecks {
			problems, err := ch.run(e.ctx, conn)
			if err != nil {
				problems = []string{"cannot check: " + explain(err).Error()}
			}
			if len(problems) > 0 {
				failed++
			}
			results = append(results, doctorResult{Name: ch.name, OK: len(problems) == 0, Problems: append([]string{}, problems...)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.JSON {
		if err := writeJSON(e.stdout, struct {
			Checks []doctorResult `json:"checks"`
			Failed int            `json:"failed"`
		}{results, failed}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			if r.OK {
				fmt.Fprintf(e.stdout, "OK    %s\n", r.Name)
			} else {
				fmt.Fprintf(e.stdout, "FAIL  %s: %s\n", r.Name, strings.Join(r.Problems, "; "))
			}
		}
	}
	if failed > 0 {
		fmt.Fprintf(e.stderr, "jobq doctor: %d check(s) failed\n", failed)
		return exitStatus(1)
	}
	return nil
}

// queryProblems is a check whose query returns one text row per problem.
func queryProblems(sql string, args ...any) func(context.Context, *pgx.Conn) ([]string, error) {
	return func(ctx context.Context, conn *pgx.Conn) ([]string, error) {
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowTo[string])
	}
}

// checkRoles compares the bootstrap roles with the attributes bootstrap gives them.
func checkRoles(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT r.rolname, r.rolcanlogin, r.rolsuper, r.rolbypassrls
		FROM pg_catalog.pg_roles r WHERE r.rolname = ANY ($1)`, migrate.RequiredRoles)
	if err != nil {
		return nil, err
	}
	found := map[string]roleAttrs{}
	for rows.Next() {
		var name string
		var a roleAttrs
		if err := rows.Scan(&name, &a.login, &a.super, &a.bypassRLS); err != nil {
			return nil, err
		}
		found[name] = a
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var problems []string
	for _, name := range migrate.RequiredRoles {
		got, ok := found[name]
		want := expectedRoles[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("role %s does not exist (run jobq bootstrap as a superuser)", name))
		case got.super:
			problems = append(problems, fmt.Sprintf("role %s is SUPERUSER", name))
		case got.bypassRLS != want.bypassRLS:
			problems = append(problems, fmt.Sprintf("role %s has BYPASSRLS %t, bootstrap gives it %t", name, got.bypassRLS, want.bypassRLS))
		case got.login != want.login:
			problems = append(problems, fmt.Sprintf("role %s has LOGIN %t, bootstrap gives it %t", name, got.login, want.login))
		}
	}
	return problems, nil
}

// checkSchema compares the database with what this binary embeds: pending migrations (or a
// breaking change newer than the binary) and function files whose checksum differs.
func checkSchema(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	var problems []string
	if _, err := migrate.CheckVersion(ctx, conn); err != nil {
		problems = append(problems, err.Error())
	}
	files, err := migrate.FunctionFiles()
	if err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, `SELECT f.name, f.checksum FROM jobq.function_files f`)
	if err != nil {
		return nil, err
	}
	applied := map[string]string{}
	for rows.Next() {
		var name, sum string
		if err := rows.Scan(&name, &sum); err != nil {
			return nil, err
		}
		applied[name] = sum
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var differ []string
	for _, f := range files {
		if sum, ok := applied[f.Name]; ok && sum != f.Checksum {
			differ = append(differ, f.Name)
		}
	}
	if len(differ) > 0 {
		problems = append(problems, fmt.Sprintf("function files %s differ from this binary's (run jobq migrate up)", strings.Join(differ, ", ")))
	}
	return problems, nil
}

// checkSettings puts every setting's current value through jobq.set_setting, in a transaction
// that is rolled back, so a value is judged by the engine's own checks (kind and docs/limits.md
// ranges). Needs an operator (or superuser) login; nothing is changed or audited.
func checkSettings(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	settings, err := operator.New(tx).Settings(ctx, "")
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, s := range settings {
		sp, err := tx.Begin(ctx)
		if err != nil {
			return nil, err
		}
		if _, err := operator.New(sp).SetSetting(ctx, s.Name, s.Value); err != nil {
			if rerr := sp.Rollback(ctx); rerr != nil {
				return nil, rerr
			}
			problems = append(problems, fmt.Sprintf("setting %s = %q: %v", s.Name, s.Value, explain(errors.Unwrap(err))))
			continue
		}
		if err := sp.Rollback(ctx); err != nil {
			return nil, err
		}
	}
	return problems, nil
}
