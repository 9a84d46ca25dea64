package migrate_test

import (
	"bufio"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	jobqsql "github.com/jobqdev/jobq/sql"
)

// createLine is the first line of a CREATE [OR REPLACE] FUNCTION statement.
var createLine = regexp.MustCompile(`(?i)^\s*CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\b`)

// intentComment is a comment line that says something (a bare "--" separates paragraphs).
var intentComment = regexp.MustCompile(`^\s*--\s*\S`)

// functionsWithoutIntent lists, as "file:line: statement", every CREATE FUNCTION of the .sql
// files of fsys whose line is not directly preceded by a comment line that says something.
func functionsWithoutIntent(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	names, err := fs.Glob(fsys, "*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, names, "no function file found")
	var missing []string
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		require.NoError(t, err)
		missing = append(missing, withoutIntent(n, string(b))...)
	}
	return missing
}

// withoutIntent is functionsWithoutIntent for the text of one file named name.
func withoutIntent(name, text string) []string {
	var missing []string
	previous := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if createLine.MatchString(line) && !intentComment.MatchString(previous) {
			missing = append(missing, name+":"+strconv.Itoa(n)+": "+strings.TrimSpace(line))
		}
		previous = line
	}
	return missing
}

// Every function of sql/functions/ has an intent comment right above its CREATE (STYLE.md,
// sql/functions/README.md): a reader of the file learns what a function is for before its
// signature, as a reader of \df+ does from its COMMENT ON FUNCTION.
func TestEveryFunctionHasAnIntentCommentAboveItsCreate(t *testing.T) {
	t.Parallel()
	if missing := functionsWithoutIntent(t, jobqsql.Functions); len(missing) > 0 {
		t.Fatalf("%d functions have no intent comment: write a comment line saying what the function is for "+
			"directly above each CREATE:\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

// The check itself: a CREATE under a comment passes; one under a blank line, a statement or a
// bare "--", or at the top of a file, is reported with its file and line.
func TestIntentCommentCheckReportsAFunctionWithoutOne(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		"CREATE OR REPLACE FUNCTION jobq.a() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;",
		"-- Says what b is for.",
		"CREATE OR REPLACE FUNCTION jobq.b() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;",
		"",
		"create function jobq.c() returns int language sql as $$ select 1 $$;",
		"--",
		"CREATE FUNCTION jobq.d() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;",
		"    -- Indented, says what e is for.",
		"    CREATE OR REPLACE FUNCTION jobq.e() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;",
		"GRANT EXECUTE ON FUNCTION jobq.e() TO jobq_operator;",
		"CREATE OR REPLACE FUNCTION jobq.f()",
	}, "\n")
	require.Equal(t, []string{
		"x.sql:1: CREATE OR REPLACE FUNCTION jobq.a() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;",
		"x.sql:5: create function jobq.c() returns int language sql as $$ select 1 $$;",
		"x.sql:7: CREATE FUNCTION jobq.d() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;",
		"x.sql:11: CREATE OR REPLACE FUNCTION jobq.f()",
	}, withoutIntent("x.sql", text))
}
