package migrate_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/migrate"
)

// Who may execute a function is declared in one place, sql/functions/99_grants.sql: a GRANT or
// REVOKE on a function in any other file would be a second declaration, which the grants file
// undoes the next time it runs (or not, when it does not run), so none is allowed.
func TestFunctionFilesGrantNothing(t *testing.T) {
	files, err := migrate.FunctionFiles()
	require.NoError(t, err)
	require.Equal(t, migrate.GrantsFile, files[len(files)-1].Name, "the grants file sorts last, after every function it grants")
	stmt := regexp.MustCompile(`(?im)^\s*(GRANT|REVOKE)\b[^;]*\bON\s+(FUNCTION|ROUTINE|ALL\s+FUNCTIONS)\b`)
	for _, f := range files {
		if f.Name == migrate.GrantsFile {
			continue
		}
		for _, m := range stmt.FindAllString(f.Body, -1) {
			t.Errorf("%s: %q: a function's grants are declared in %s only", f.Name, strings.TrimSpace(m), migrate.GrantsFile)
		}
	}
}
