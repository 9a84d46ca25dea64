package jobqtest_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// mainTB is the testing.TB of TestMain, where there is no test: dbtest.New needs Helper,
// Fatalf, Errorf and Cleanup of it, and nothing else.
type mainTB struct {
	testing.TB
	cleanups []func()
}

func (m *mainTB) Helper()          {}
func (m *mainTB) Cleanup(f func()) { m.cleanups = append(m.cleanups, f) }
func (m *mainTB) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
func (m *mainTB) Errorf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// TestMain gives the examples a database of their own: DATABASE_URL, the superuser of a fresh
// clone, as an application's test suite would have.
func TestMain(m *testing.M) {
	tb := &mainTB{}
	db := dbtest.New(tb)
	os.Setenv("DATABASE_URL", db.URL("postgres"))
	code := m.Run()
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
	os.Exit(code)
}
