package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// jobq stats: one row per queue (and store) of jobq.stats(queue, store_id), with the queue's flow
// controls in the words of jobq queues list (limitsText).

type statsCmd struct {
	connFlags
	jsonFlag
	Queue string `help:"only this queue"`
	Store string `help:"only this store id (uuid)"`
}

// statsRow is one row of jobq.stats in --json output; intervals are in seconds (null when no
// job gives one).
type statsRow struct {
	Queue              string   `json:"queue"`
	StoreID            *string  `json:"store_id"`
	Queued             int64    `json:"queued"`
	RetryPending       int64    `json:"retry_pending"`
	Running            int64    `json:"running"`
	Scheduled          int64    `json:"scheduled"`
	OldestDueAge       *float64 `json:"oldest_due_age_seconds"`
	DeadLastHour       int64    `json:"dead_last_hour"`
	DeadLastDay        int64    `json:"dead_last_day"`
	SucceededLastHour  int64    `json:"succeeded_last_hour"`
	SucceededPerMinute *float64 `json:"succeeded_per_minute"`
	WaitP50            *float64 `json:"wait_p50_seconds"`
	WaitP95            *float64 `json:"wait_p95_seconds"`
	RunP50             *float64 `json:"run_p50_seconds"`
	RunP95             *float64 `json:"run_p95_seconds"`
	// Limits are the queue's flow controls as jobq queues list shows them (jobq.queue_states'
	// limits); null when it has none.
	Limits map[string]any `json:"limits"`
	// NotServed counts the waiting jobs whose task no live worker of the queue serves;
	// NotServedOldestAge is how long the oldest due one has waited (null when none is due).
	NotServed          int64    `json:"not_served"`
	NotServedOldestAge *float64 `json:"not_served_oldest_age_seconds"`
}

// statsQuery reads jobq.stats with the intervals as seconds.
const statsQuery = `SELECT s.queue, s.store_id::text, s.queued, s.retry_pending, s.running, s.scheduled,
	extract(epoch FROM s.oldest_due_age)::float8, s.dead_last_hour, s.dead_last_day, s.succeeded_last_hour,
	s.succeeded_per_minute::float8, extract(epoch FROM s.wait_p50)::float8, extract(epoch FROM s.wait_p95)::float8,
	extract(epoch FROM s.run_p50)::float8, extract(epoch FROM s.run_p95)::float8, s.limits,
	s.not_served, extract(epoch FROM s.not_served_oldest_age)::float8
	FROM jobq.stats($1::text, $2::uuid) s ORDER BY s.queue, s.store_id NULLS FIRST`

func (c *statsCmd) Run(e *env) error {
	if c.Store != "" && !uuidRE.MatchString(c.Store) {
		return usageError{fmt.Sprintf("--store %q: want a store id (a uuid)", c.Store)}
	}
	var stats []statsRow
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		rows, err := conn.Query(e.ctx, statsQuery, nullable(c.Queue), nullable(c.Store))
		if err != nil {
			return err
		}
		stats, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (statsRow, error) {
			var s statsRow
			var perMin pgtype.Float8
			err := r.Scan(&s.Queue, &s.StoreID, &s.Queued, &s.RetryPending, &s.Running, &s.Scheduled,
				&s.OldestDueAge, &s.DeadLastHour, &s.DeadLastDay, &s.SucceededLastHour, &perMin,
				&s.WaitP50, &s.WaitP95, &s.RunP50, &s.RunP95, &s.Limits, &s.NotServed, &s.NotServedOldestAge)
			if perMin.Valid {
				s.SucceededPerMinute = &perMin.Float64
			}
			return s, err
		})
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		if stats == nil {
			stats = []statsRow{}
		}
		return writeJSON(e.stdout, stats)
	}
	secs := func(f *float64) string {
		if f == nil {
			return "-"
		}
		d := time.Duration(*f * float64(time.Second))
		if d < time.Second {
			return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
		}
		return shortDuration(d)
	}
	num := func(n int64) string { return strconv.FormatInt(n, 10) }
	table := make([][]string, 0, len(stats))
	for _, s := range stats {
		perMin := "-"
		if s.SucceededPerMinute != nil {
			perMin = strconv.FormatFloat(*s.SucceededPerMinute, 'f', 1, 64)
		}
		table = append(table, []string{s.Queue, orDash(s.StoreID), num(s.Queued), num(s.RetryPending), num(s.Running),
			num(s.Scheduled), secs(s.OldestDueAge), num(s.DeadLastHour), num(s.DeadLastDay), num(s.SucceededLastHour), perMin,
			secs(s.WaitP50) + "/" + secs(s.WaitP95), secs(s.RunP50) + "/" + secs(s.RunP95),
			notServedText(s.NotServed, s.NotServedOldestAge), limitsText(s.Limits)})
	}
	return writeTable(e.stdout, []string{"QUEUE", "STORE", "QUEUED", "RETRY", "RUNNING", "SCHEDULED", "LAG",
		"DEAD 1H", "DEAD 1D", "OK 1H", "OK/MIN", "WAIT P50/P95", "RUN P50/P95", "NOT SERVED", "LIMITS"}, table)
}
