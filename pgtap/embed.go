// Package pgtap embeds the fixtures of the pgTAP suites of this folder: schema jobq_test
// (jobq_test.pgsql), which `jobq sandbox` installs before it runs its command, so that pg_prove
// finds jobq_test.reset() and the other helpers. Test-only: no jobq install applies it.
package pgtap

import _ "embed"

// Fixtures is the SQL of schema jobq_test, run as a superuser on a freshly migrated database.
//
//go:embed jobq_test.pgsql
var Fixtures string
