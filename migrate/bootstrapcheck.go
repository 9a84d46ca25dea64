package migrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/jobqdev/jobq"
)

// bootstrapChecks are what the migrations and function files need of bootstrap/, each with the
// step that makes it. They are checked before anything else, as the migrator: a database that
// lacks one is refused with ErrBootstrapMissing naming it and its step, and nothing is changed.
// $1 is the list of required roles; a check whose roles are missing is left to the role check.
const bootstrapChecks = `
WITH roles AS (SELECT r FROM pg_catalog.unnest($1::text[]) AS r),
missing AS (
    SELECT r FROM roles WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles p WHERE p.rolname = r)
),
checks(problem, step, ok) AS (
    SELECT pg_catalog.format('role %s is missing', r), '001_roles.sql', false FROM missing
    UNION ALL
    -- 002: the migrator hands functions to these two roles (ALTER ... OWNER needs membership).
    SELECT pg_catalog.format('jobq_migrator is not a member of %s', g), '002_database.sql',
           pg_catalog.pg_has_role('jobq_migrator', g, 'MEMBER')
    FROM pg_catalog.unnest(ARRAY['worker_fanout_owner', 'jobq_app_gate']) AS g
    WHERE g NOT IN (SELECT r FROM missing) AND 'jobq_migrator' NOT IN (SELECT r FROM missing)
    UNION ALL
    -- 002: the owner of public.list_store_ids_for_fan_out must hold CREATE on schema public when
    -- the function file hands it over; the migrator creates public.store where it is missing.
    SELECT pg_catalog.format('%s lacks CREATE on schema public', g), '002_database.sql',
           pg_catalog.has_schema_privilege(g, 'public', 'CREATE')
    FROM pg_catalog.unnest(ARRAY['jobq_migrator', 'worker_fanout_owner']) AS g
    WHERE g NOT IN (SELECT r FROM missing) AND pg_catalog.to_regnamespace('public') IS NOT NULL
    UNION ALL
    -- 002: a new installation creates the schema jobq.
    SELECT 'jobq_migrator lacks CREATE on database ' || pg_catalog.current_database(), '002_database.sql',
           pg_catalog.has_database_privilege('jobq_migrator', pg_catalog.current_database(), 'CREATE')
    WHERE pg_catalog.to_regnamespace('jobq') IS NULL AND 'jobq_migrator' NOT IN (SELECT r FROM missing)
)
SELECT c.problem, c.step FROM checks c WHERE NOT c.ok ORDER BY c.step, c.problem`

// checkBootstrap refuses to go on when bootstrap is missing or older than the migrations need
// (a release added a role: its bootstrap must run again before its migrations). It changes
// nothing.
func (m *Migrator) checkBootstrap(ctx context.Context) error {
	roles := m.opts.RequiredRoles
	if roles == nil {
		roles = RequiredRoles
	}
	rows, err := m.db.QueryContext(ctx, bootstrapChecks, roles)
	if err != nil {
		return fmt.Errorf("migrate: check the bootstrap: %w", err)
	}
	defer rows.Close()
	var problems []string
	steps := map[string]bool{}
	var stepList []string
	for rows.Next() {
		var problem, step string
		if err := rows.Scan(&problem, &step); err != nil {
			return fmt.Errorf("migrate: check the bootstrap: %w", err)
		}
		problems = append(problems, problem)
		if !steps[step] {
			steps[step] = true
			stepList = append(stepList, "bootstrap/"+step)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("migrate: check the bootstrap: %w", err)
	}
	if len(problems) == 0 {
		return nil
	}
	return &jobq.Error{
		Code: jobq.ErrBootstrapMissing.Code,
		Message: fmt.Sprintf("JOB.BOOTSTRAP_MISSING: %s: run `jobq bootstrap` (%s) as a superuser first, connected to this database; nothing was changed",
			strings.Join(problems, "; "), strings.Join(stepList, ", ")),
		// The catalogue's hint (jobq.error_codes): the message above names the step.
		Hint: "Apply bootstrap first (jobq bootstrap, or psql -f bootstrap/*.sql as a superuser), then run the migrations.",
	}
}
