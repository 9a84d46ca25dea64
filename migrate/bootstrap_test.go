package migrate_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/migrate"
)

// rolPassword reads the stored password hash of role (pg_authid; superuser only), nil when unset.
func rolPassword(t *testing.T, conn *pgx.Conn, role string) *string {
	t.Helper()
	var pw *string
	require.NoError(t, conn.QueryRow(testCtx(t), "SELECT rolpassword FROM pg_catalog.pg_authid WHERE rolname = $1", role).Scan(&pw))
	return pw
}

// TestBootstrap runs on a cluster of its own because it changes cluster-wide roles. The subtests
// run in order: each starts from the roles the previous one left.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	cluster := dbtest.StartCluster(t)
	dbtest.CreateDatabase(t, cluster, "app")
	admin := dbtest.Connect(t, cluster.URL("postgres", "app"))
	ctx := testCtx(t)

	// Given: bootstrap without passwords on a cluster where it never ran.
	require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{}))
	require.Equal(t, migrate.RequiredRoles,
		dbtest.QueryStrings(t, admin, "SELECT rolname::text FROM pg_catalog.pg_roles WHERE rolname = ANY($1) ORDER BY array_position($1, rolname::text)", migrate.RequiredRoles),
		"bootstrap creates every required role")
	require.Nil(t, rolPassword(t, admin, "worker_runtime"), "a new role gets no password unless one is passed")
	require.Nil(t, rolPassword(t, admin, "jobq_migrator"))

	var runtimeHash string
	t.Run("WorkerRuntimePasswordIsSet", func(t *testing.T) {
		require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{WorkerRuntimePassword: "runtime-secret-1"}))

		pw := rolPassword(t, admin, "worker_runtime")
		require.NotNil(t, pw, "worker_runtime has a password after bootstrap with WorkerRuntimePassword")
		require.NotContains(t, *pw, "runtime-secret-1", "the password is stored hashed")
		require.Nil(t, rolPassword(t, admin, "jobq_migrator"), "only the role whose password was passed changes")
		runtimeHash = *pw

		var leftover *string
		require.NoError(t, admin.QueryRow(ctx, "SELECT nullif(current_setting('jobq.worker_runtime_password', true), '')").Scan(&leftover))
		require.Nil(t, leftover, "Bootstrap does not leave the password in the caller's session")
	})

	t.Run("MigratorPasswordIsSet", func(t *testing.T) {
		require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{MigratorPassword: "migrator-secret-1"}))
		require.NotNil(t, rolPassword(t, admin, "jobq_migrator"))
		require.Equal(t, &runtimeHash, rolPassword(t, admin, "worker_runtime"), "worker_runtime keeps its password")
	})

	var wakerHash string
	t.Run("WakerPasswordIsSet", func(t *testing.T) {
		require.Nil(t, rolPassword(t, admin, "jobq_waker"), "jobq_waker has no password before")
		migratorHash := rolPassword(t, admin, "jobq_migrator")
		require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{WakerPassword: "waker-secret-1"}))

		pw := rolPassword(t, admin, "jobq_waker")
		require.NotNil(t, pw, "jobq_waker has a password after bootstrap with WakerPassword")
		require.NotContains(t, *pw, "waker-secret-1", "the password is stored hashed")
		wakerHash = *pw
		require.Equal(t, &runtimeHash, rolPassword(t, admin, "worker_runtime"), "worker_runtime keeps its password")
		require.Equal(t, migratorHash, rolPassword(t, admin, "jobq_migrator"), "jobq_migrator keeps its password")

		var leftover *string
		require.NoError(t, admin.QueryRow(ctx, "SELECT nullif(current_setting('jobq.waker_password', true), '')").Scan(&leftover))
		require.Nil(t, leftover, "Bootstrap does not leave the password in the caller's session")
	})

	t.Run("WithoutPasswordTheExistingOneIsKept", func(t *testing.T) {
		migratorHash := rolPassword(t, admin, "jobq_migrator")
		require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{}))
		require.Equal(t, &runtimeHash, rolPassword(t, admin, "worker_runtime"))
		require.Equal(t, migratorHash, rolPassword(t, admin, "jobq_migrator"))
		require.Equal(t, &wakerHash, rolPassword(t, admin, "jobq_waker"))
	})

	t.Run("DriftedAttributesAreReasserted", func(t *testing.T) {
		_, err := admin.Exec(ctx, `ALTER ROLE worker_runtime BYPASSRLS CREATEDB;
			ALTER ROLE worker_fanout_owner NOBYPASSRLS LOGIN;
			ALTER ROLE jobq_app LOGIN`)
		require.NoError(t, err)

		require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{}))

		type attrs struct {
			Name                              string
			Login, Super, BypassRLS, CreateDB bool
		}
		rows, err := admin.Query(ctx, `SELECT rolname, rolcanlogin, rolsuper, rolbypassrls, rolcreatedb
			FROM pg_catalog.pg_roles WHERE rolname IN ('worker_runtime', 'worker_fanout_owner', 'jobq_app') ORDER BY rolname`)
		require.NoError(t, err)
		got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[attrs])
		require.NoError(t, err)
		require.Equal(t, []attrs{
			{Name: "jobq_app"},
			{Name: "worker_fanout_owner", BypassRLS: true},
			{Name: "worker_runtime", Login: true},
		}, got)
	})

	t.Run("FanoutOwnerMembershipIsRevoked", func(t *testing.T) {
		_, err := admin.Exec(ctx, "GRANT worker_fanout_owner TO worker_runtime")
		require.NoError(t, err)

		require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{}))

		require.Equal(t, []string{"jobq_migrator"}, dbtest.QueryStrings(t, admin, `
			SELECT m.rolname::text FROM pg_catalog.pg_auth_members a
			JOIN pg_catalog.pg_roles m ON m.oid = a.member
			WHERE a.roleid = 'worker_fanout_owner'::regrole ORDER BY 1`),
			"only the migrator stays a member of worker_fanout_owner")
		// The migrator may act for the owner roles (to hand them functions and take them back), but
		// gains no BYPASSRLS (an attribute is never inherited), and they never gain its rights.
		var bypass, ownerIsMember bool
		require.NoError(t, admin.QueryRow(ctx, `SELECT rolbypassrls FROM pg_catalog.pg_roles WHERE rolname = 'jobq_migrator'`).Scan(&bypass))
		require.False(t, bypass, "the migrator is not BYPASSRLS")
		require.NoError(t, admin.QueryRow(ctx, `SELECT pg_has_role('worker_fanout_owner', 'jobq_migrator', 'MEMBER')
			OR pg_has_role('jobq_app_gate', 'jobq_migrator', 'MEMBER')`).Scan(&ownerIsMember))
		require.False(t, ownerIsMember, "neither owner role is a member of the migrator")
	})
}
