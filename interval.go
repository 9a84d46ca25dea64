package jobq

import (
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// durationOf is a SQL interval as a duration, nil when NULL; a month counts 30 days.
func durationOf(iv pgtype.Interval) *time.Duration {
	if !iv.Valid {
		return nil
	}
	d := time.Duration(iv.Microseconds)*time.Microsecond +
		time.Duration(iv.Days)*24*time.Hour + time.Duration(iv.Months)*30*24*time.Hour
	return &d
}
