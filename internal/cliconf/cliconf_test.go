package cliconf_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/cliconf"
)

// MaskURL hides a connection string's password wherever PostgreSQL takes one, and hides whole
// what it cannot read as a connection string.
func TestMaskURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"postgres://worker_runtime:s3cr3t@db:5432/app?sslmode=disable", "postgres://worker_runtime:***@db:5432/app?sslmode=disable"},
		{"postgres://worker_runtime@db/app", "postgres://worker_runtime@db/app"},
		{"postgresql://db/app?user=op&password=s3cr3t", "postgresql://db/app?password=***&user=op"},
		{"host=db user=op password=s3cr3t dbname=app", "host=db user=op password=*** dbname=app"},
		{"host=db password = 'a b\\' c' dbname=app", "host=db password = *** dbname=app"},
		{"s3cr3t", "***"},
	} {
		got := cliconf.MaskURL(tc.in)
		require.Equal(t, tc.want, got, tc.in)
		require.NotContains(t, got, "s3cr3t")
	}
}
