package jobsql

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Error is an error raised by the jobq SQL engine: a stable Code such as "JOB.LEASE_LOST", the
// SQLSTATE it was raised with (class JQ), the message and the hint. Compare with errors.Is
// against package jobq's sentinels (jobq.ErrLeaseLost and the others); they match on Code.
type Error struct {
	Code     string
	SQLState string
	Message  string
	Hint     string
	cause    error
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Message
}

// Unwrap returns the *pgconn.PgError the engine raised, when there is one.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// FromDB maps an error returned by the database to an *Error when PostgreSQL raised it with a
// jobq SQLSTATE (class JQ), wrapping the original; any other error is returned as it is. It is
// the one place where SQLSTATEs become Go errors.
func FromDB(err error) error {
	var pg *pgconn.PgError
	if err == nil || !errors.As(err, &pg) || !strings.HasPrefix(pg.Code, "JQ") {
		return err
	}
	code, _, _ := strings.Cut(pg.Message, ":")
	return &Error{Code: code, SQLState: pg.Code, Message: pg.Message, Hint: pg.Hint, cause: err}
}

// Wrap maps err with FromDB and prefixes what was being done ("jobq: <doing>: "); nil stays nil.
// Every call of package jobq and of internal/engine returns its errors through it.
func Wrap(err error, doing string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("jobq: %s: %w", doing, FromDB(err))
}
