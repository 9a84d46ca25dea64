package migrate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// TestSchemaSnapshot keeps testdata/schema.snapshot.sql equal to what the migrations build, owners
// and privileges included, so that every change to the installed schema shows up in review as a
// diff of that file. `make schema-snapshot` (JOBQ_UPDATE_SNAPSHOT=1) rewrites it.
func TestSchemaSnapshot(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)

	got := dbtest.DumpSchema(t, db.URL("postgres"))

	if os.Getenv("JOBQ_UPDATE_SNAPSHOT") == "1" {
		require.NoError(t, os.MkdirAll(filepath.Dir(snapshotPath), 0o755))
		require.NoError(t, os.WriteFile(snapshotPath, []byte(got), 0o644))
		t.Logf("wrote %s; review and commit the diff", snapshotPath)
		return
	}
	wantBytes, err := os.ReadFile(snapshotPath)
	require.NoError(t, err, "read the committed snapshot; run make schema-snapshot to create it")
	if want := string(wantBytes); want != got {
		t.Fatalf("the migrated jobq schema differs from %s (- snapshot, + migrations).\n"+
			"If the change is intended, run make schema-snapshot and commit the file.\n%s",
			snapshotPath, dbtest.DiffLines(want, got))
	}
}
