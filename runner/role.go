package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/jobqdev/jobq"
)

const unsafeRoleHint = "Connect the runner as worker_runtime (WORKER_DATABASE_URL). Superusers, BYPASSRLS roles and the " +
	"jobq schema's owner (jobq_migrator) bypass the engine's guarantees and row-level security; the migrator's URL " +
	"is for migrations only."

// CheckRole returns an ErrUnsafeRole error when the session or current role of db is a
// superuser, has BYPASSRLS, or owns the jobq schema (directly or as a member of its owner). Run
// calls it before it claims anything.
func CheckRole(ctx context.Context, db jobq.DB) error {
	rows, err := db.Query(ctx, `
		SELECT r.rolname, r.rolsuper, r.rolbypassrls,
		       coalesce(pg_catalog.pg_has_role(r.oid, n.nspowner, 'MEMBER'), false),
		       coalesce(pg_catalog.pg_get_userbyid(n.nspowner), '')
		FROM pg_catalog.pg_roles r
		LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = 'jobq'
		WHERE r.rolname IN (session_user, current_user)`)
	if err != nil {
		return fmt.Errorf("runner: check role: %w", jobq.FromDB(err))
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var name, owner string
		var super, bypass, owns bool
		if err := rows.Scan(&name, &super, &bypass, &owns, &owner); err != nil {
			return fmt.Errorf("runner: check role: %w", err)
		}
		switch {
		case super:
			problems = append(problems, fmt.Sprintf("%s is a superuser", name))
		case bypass:
			problems = append(problems, fmt.Sprintf("%s has BYPASSRLS", name))
		case owns && name == owner:
			problems = append(problems, fmt.Sprintf("%s owns the jobq schema", name))
		case owns:
			problems = append(problems, fmt.Sprintf("%s is a member of %s, the jobq schema's owner", name, owner))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("runner: check role: %w", jobq.FromDB(err))
	}
	if len(problems) > 0 {
		return codeError(ErrUnsafeRole, unsafeRoleHint, "refusing to run jobs: %s", strings.Join(problems, "; "))
	}
	return nil
}
