package fuzz_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// fuzzRoles are the roles whose callable functions the fuzzer covers, in the order a function's
// callers are listed.
var fuzzRoles = []string{"jobq_app", "worker_runtime", "jobq_operator"}

// arg is one input argument of a catalogued function.
type arg struct {
	Name       string // as declared (job_id, p_worker_id, ...); "" when unnamed
	Type       string // format_type of its type: text, bigint[], timestamp with time zone, jobq.cron_fields
	HasDefault bool
}

// kind is the argument's name without the p_ prefix of private helpers: what generators key on.
func (a arg) kind() string { return strings.TrimPrefix(a.Name, "p_") }

// function is one function of schema jobq that at least one of fuzzRoles may EXECUTE.
type function struct {
	Name      string   // jobq.name, without arguments
	Signature string   // regprocedure text, unique: jobq.enqueue(text,jsonb,...)
	Args      []arg    // input arguments in order
	Roles     []string // which of fuzzRoles may EXECUTE it
}

// required is how many leading arguments have no default: a call may pass any count from there up.
func (f *function) required() int {
	n := len(f.Args)
	for n > 0 && f.Args[n-1].HasDefault {
		n--
	}
	return n
}

// callSQL is the statement calling f with its first n arguments as parameters. Every parameter is
// sent as text and cast to the argument's declared type, so each value reaches the function as
// that type, exactly as a caller's quoted literal would.
func (f *function) callSQL(n int) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM ")
	b.WriteString(f.Name)
	b.WriteString("(")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d::text::%s", i+1, f.Args[i].Type)
	}
	b.WriteString(")")
	return b.String()
}

// listFunctions reads from the catalog every function of schema jobq that jobq_app, worker_runtime
// or jobq_operator may EXECUTE, with its input arguments, so a function added later is fuzzed (or
// named as lacking a generator) without a change here.
func listFunctions(ctx context.Context, conn *pgx.Conn) ([]*function, error) {
	rows, err := conn.Query(ctx, `
		SELECT p.oid::regprocedure::text,
		       n.nspname || '.' || p.proname,
		       ARRAY(SELECT coalesce(a.name, '') FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
		                                                      p.proargnames, p.proargmodes) WITH ORDINALITY AS a(type, name, mode, ord)
		             WHERE coalesce(a.mode, 'i') IN ('i', 'b', 'v') ORDER BY a.ord),
		       ARRAY(SELECT pg_catalog.format_type(a.type, NULL) FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
		                                                      p.proargnames, p.proargmodes) WITH ORDINALITY AS a(type, name, mode, ord)
		             WHERE coalesce(a.mode, 'i') IN ('i', 'b', 'v') ORDER BY a.ord),
		       p.pronargdefaults,
		       ARRAY(SELECT r FROM unnest($1::text[]) WITH ORDINALITY AS u(r, ord)
		             WHERE pg_catalog.has_function_privilege(r, p.oid, 'EXECUTE') ORDER BY u.ord)
		FROM pg_catalog.pg_proc p
		JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'jobq' AND p.prokind = 'f'
		ORDER BY 1`, fuzzRoles)
	if err != nil {
		return nil, err
	}
	var out []*function
	for rows.Next() {
		var f function
		var names, types []string
		var defaults int
		if err := rows.Scan(&f.Signature, &f.Name, &names, &types, &defaults, &f.Roles); err != nil {
			return nil, err
		}
		if len(f.Roles) == 0 {
			continue
		}
		for i := range types {
			f.Args = append(f.Args, arg{Name: names[i], Type: types[i], HasDefault: i >= len(types)-defaults})
		}
		out = append(out, &f)
	}
	return out, rows.Err()
}
