package migrate

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pressly/goose/v3"
)

// The SQL install: the whole of a release as one script for psql, for a DBA who installs jobq
// without the jobq binary (make dist writes it as jobq--VERSION.sql). It is the transaction Up
// runs on a database without jobq, word for word (the same steps: migrations with their version
// rows, function files with their checksums), so that the schema is the one jobq migrate up gives
// and jobq migrate status, validate and a later up read it as their own. Two guards come first: the
// roles of bootstrap/ exist (JOB.BOOTSTRAP_MISSING otherwise) and the database has no jobq yet
// (JOB.ALREADY_INSTALLED: an installed jobq is upgraded by jobq migrate up). A failure anywhere
// rolls the whole script back.

// releaseLabel is what a release's label may hold (make dist's VERSION: a tag or v0.0.0-dev+<commit>).
var releaseLabel = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]{0,99}$`)

// installGuard refuses a database that has jobq already, with the newest migration it records.
const installGuard = `DO $guard$
DECLARE
    v_newest bigint;
BEGIN
    SELECT max(v.version_id) INTO v_newest FROM jobq.goose_db_version v WHERE v.is_applied AND v.version_id > 0;
    IF v_newest IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'JQ302',
            MESSAGE = pg_catalog.format('JOB.ALREADY_INSTALLED: this database has jobq at migration %s; the install script applies only to a database without jobq', v_newest),
            HINT = 'Upgrade an installed jobq with jobq migrate up (or its --dry-run piped to psql); nothing was changed.';
    END IF;
END
$guard$;`

// bootstrapGuard refuses a cluster without the roles of bootstrap/001_roles.sql, before the
// script takes the migrator's role.
func bootstrapGuard(roles []string) string {
	quoted := make([]string, len(roles))
	for i, r := range roles {
		quoted[i] = quote(r)
	}
	return fmt.Sprintf(`DO $guard$
DECLARE
    v_missing text;
BEGIN
    SELECT pg_catalog.string_agg(r, ', ' ORDER BY r) INTO v_missing
    FROM pg_catalog.unnest(ARRAY[%s]::text[]) AS r
    WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles p WHERE p.rolname = r);
    IF v_missing IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'JQ301',
            MESSAGE = pg_catalog.format('JOB.BOOTSTRAP_MISSING: roles %%s do not exist: run jobq bootstrap (bootstrap/001_roles.sql, bootstrap/002_database.sql) as a superuser first; nothing was changed', v_missing),
            HINT = 'Apply bootstrap first (jobq bootstrap, or psql -f bootstrap/*.sql as a superuser), then this script.';
    END IF;
END
$guard$;
-- The objects belong to jobq_migrator whoever runs the script (it, or a superuser).
SET LOCAL ROLE jobq_migrator;`, strings.Join(quoted, ", "))
}

// migrationSources lists the goose migrations of fsys (NNNNN_name.sql), in version order, without
// a database.
func migrationSources(fsys fs.FS) ([]*goose.Source, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var out []*goose.Source
	for _, n := range names {
		digits, _, ok := strings.Cut(path.Base(n), "_")
		v, err := strconv.ParseInt(digits, 10, 64)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("migrate: %s is not named NNNNN_name.sql", n)
		}
		out = append(out, &goose.Source{Type: goose.TypeSQL, Path: n, Version: v})
	}
	slices.SortFunc(out, func(a, b *goose.Source) int { return int(a.Version - b.Version) })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrate: %s and %s share version %d", out[i-1].Path, out[i].Path, out[i].Version)
		}
	}
	return out, nil
}

// installPlan is the upgrade of a database without jobq to src: every migration and every
// function file.
func installPlan(src Source) (*upgrade, error) {
	u := &upgrade{upSQL: map[int64]string{}}
	sources, err := migrationSources(src.Migrations)
	if err != nil {
		return nil, err
	}
	for _, s := range sources {
		body, err := fs.ReadFile(src.Migrations, s.Path)
		if err != nil {
			return nil, err
		}
		if strings.Contains(string(body), "-- +goose NO TRANSACTION") {
			return nil, fmt.Errorf("migrate: migration %d (%s) runs outside a transaction (goose NO TRANSACTION): the install script cannot include it", s.Version, s.Path)
		}
		var b strings.Builder
		if err := writeUpSection(&b, string(body)); err != nil {
			return nil, err
		}
		u.migrations = append(u.migrations, s)
		u.upSQL[s.Version] = b.String()
	}
	if u.allFiles, err = functionFilesIn(src.Functions); err != nil {
		return nil, err
	}
	u.files = u.allFiles
	return u, nil
}

// WriteInstallScript writes src (Embedded() for this binary's release) as one SQL script that
// installs jobq, labelled version, into a database that bootstrap/ prepared: apply it with
// psql -v ON_ERROR_STOP=1 -f FILE (or psql -1 -f FILE) as jobq_migrator or a superuser. It reads no
// database.
func WriteInstallScript(w io.Writer, src Source, version string) error {
	// The label lands in the script's comments and its file name: a version's characters only.
	if !releaseLabel.MatchString(version) {
		return fmt.Errorf("migrate: release %q is not a version (letters, digits, '.', '+', '-', '_'; at most 100)", version)
	}
	u, err := installPlan(src)
	if err != nil {
		return err
	}
	if len(u.migrations) == 0 {
		return fmt.Errorf("migrate: the source has no migration")
	}
	newest := u.migrations[len(u.migrations)-1].Version
	fmt.Fprintf(w, `-- jobq %s: the SQL install, %d migrations (the newest %d) and %d function files in one
-- transaction; written by jobq migrate script (make dist). For a database that bootstrap/ prepared
-- and that has no jobq yet:
--
--   psql -v ON_ERROR_STOP=1 -f jobq--%s.sql "postgres://jobq_migrator@HOST/DB"
--
-- It refuses a cluster without the roles of bootstrap/ (JQ301) and a database that has jobq
-- already (JQ302: upgrade that with jobq migrate up), and changes nothing then, nor on any other
-- error. The schema is the one jobq migrate up gives, recorded as it records it, so jobq migrate
-- status reads it and a later jobq migrate up upgrades it (docs/upgrading.md).

`, version, len(u.migrations), newest, len(u.files), version)
	steps := u.steps()
	out := make([]step, 0, len(steps)+2)
	for _, st := range steps {
		if st.what == lockStepWhat {
			// A database without jobq has no table to lock.
			continue
		}
		out = append(out, st)
		switch st.sql {
		case "BEGIN;":
			out = append(out, step{what: "the roles of bootstrap/, then the migrator's role", sql: bootstrapGuard(RequiredRoles)})
		case installPreamble:
			out = append(out, step{what: "a database that has jobq already is upgraded by jobq migrate up, not installed again", sql: installGuard})
		}
	}
	for _, st := range out {
		if _, err := fmt.Fprintf(w, "-- %s\n%s\n\n", st.what, strings.TrimRight(st.sql, "\n")); err != nil {
			return err
		}
	}
	return nil
}
