package migrate_test

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/bootstrap"
	"github.com/jobqdev/jobq/migrate"
	jobqsql "github.com/jobqdev/jobq/sql"
)

// migrate.RequiredRoles, which Open checks before anything, is exactly the roles of
// bootstrap/001_roles.sql that the migrations and function files name outside comments: a release
// whose SQL grants to a new role makes Open refuse, naming it and bootstrap/001_roles.sql, until
// bootstrap has run (instead of failing half-way through the upgrade).
func TestRequiredRolesAreTheBootstrapRolesTheSQLNames(t *testing.T) {
	t.Parallel()
	roles001, err := fs.ReadFile(bootstrap.Files, "001_roles.sql")
	require.NoError(t, err)
	var created []string
	for _, m := range regexp.MustCompile(`\(\s*'(\w+)',\s*'(?:NO)?LOGIN`).FindAllStringSubmatch(string(roles001), -1) {
		created = append(created, m[1])
	}
	require.NotEmpty(t, created)

	named := map[string]bool{}
	for _, fsys := range []fs.FS{jobqsql.Migrations, jobqsql.Functions} {
		names, err := fs.Glob(fsys, "*.sql")
		require.NoError(t, err)
		for _, n := range names {
			body, err := fs.ReadFile(fsys, n)
			require.NoError(t, err)
			for _, line := range strings.Split(string(body), "\n") {
				code, _, _ := strings.Cut(line, "--")
				for _, r := range created {
					if regexp.MustCompile(`\b` + r + `\b`).MatchString(code) {
						named[r] = true
					}
				}
			}
		}
	}
	var want []string
	for r := range named {
		want = append(want, r)
	}
	slices.Sort(want)
	got := slices.Clone(migrate.RequiredRoles)
	slices.Sort(got)
	require.Equal(t, want, got)
}
