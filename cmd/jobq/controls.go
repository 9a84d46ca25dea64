package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/alecthomas/kong"
	"github.com/jackc/pgx/v5"
)

// The operator's controls: pausing and resuming queues and schedules, running a schedule now and
// demoting the leader. Each is one call of its SQL function (docs/sql-api.md, Operators), audited
// there with the login as actor.

// ---- queues ----

type queuesCmd struct {
	List   queuesListCmd `cmd:"" help:"List every known queue: paused or not, jobs by state (jobq.queue_states), the waiting jobs no live worker serves (jobq.queue_not_served)."`
	Pause  queueActCmd   `cmd:"" help:"Pause a queue: no claim takes its jobs until it is resumed; enqueue still works (jobq.pause_queue)."`
	Resume queueActCmd   `cmd:"" help:"Resume a paused queue; its due jobs are claimed at once (jobq.resume_queue)."`
	Limit  queueLimitCmd `cmd:"" help:"Set or remove a queue's concurrency and rate limits and fair claiming (jobq.set_concurrency_limit and its siblings, jobq.set_fair_claiming; docs/flow-control.md)."`
}

type queueRow struct {
	Queue        string     `json:"queue" db:"queue"`
	Paused       bool       `json:"paused" db:"paused"`
	PausedAt     *time.Time `json:"paused_at" db:"paused_at"`
	PausedBy     *string    `json:"paused_by" db:"paused_by"`
	Queued       int64      `json:"queued" db:"queued"`
	RetryPending int64      `json:"retry_pending" db:"retry_pending"`
	Running      int64      `json:"running" db:"running"`
	Scheduled    int64      `json:"scheduled" db:"scheduled"`
	// Limits are the queue's concurrency and rate limits that are set, by name as in
	// jobq.queues (intervals as PostgreSQL writes them); null when it has none.
	Limits map[string]any `json:"limits" db:"limits"`
	// NotServed counts the waiting jobs (queued or retry_pending, due or not) whose task no live
	// worker of the queue serves; NotServedOldestAge is how long the oldest due one has waited,
	// in seconds (null when none is due).
	NotServed          int64    `json:"not_served" db:"not_served"`
	NotServedOldestAge *float64 `json:"not_served_oldest_age_seconds" db:"not_served_oldest_age"`
}

// notServedText is the NOT SERVED cell of queues list: "0", or the count and the oldest due
// one's age ("3, oldest 5m"; "3" when none of them is due yet).
func notServedText(n int64, oldest *float64) string {
	text := strconv.FormatInt(n, 10)
	if n > 0 && oldest != nil {
		text += ", oldest " + shortDuration(time.Duration(*oldest*float64(time.Second)))
	}
	return text
}

type queuesListCmd struct {
	connFlags
	jsonFlag
}

func (c *queuesListCmd) Run(e *env) error {
	var qs []queueRow
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		rows, err := conn.Query(e.ctx, `SELECT s.queue, s.paused, s.paused_at, s.paused_by, s.queued, s.retry_pending, s.running,
				s.scheduled, s.limits, n.not_served, extract(epoch FROM n.oldest_age)::float8 AS not_served_oldest_age
			FROM jobq.queue_states() s CROSS JOIN LATERAL jobq.queue_not_served(ARRAY[s.queue]) n ORDER BY s.queue`)
		if err != nil {
			return err
		}
		qs, err = pgx.CollectRows(rows, pgx.RowToStructByName[queueRow])
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		if qs == nil {
			qs = []queueRow{}
		}
		return writeJSON(e.stdout, qs)
	}
	now := time.Now()
	table := make([][]string, 0, len(qs))
	for _, q := range qs {
		state := "active"
		if q.Paused {
			state = "paused " + relTime(q.PausedAt, now) + " by " + orDash(q.PausedBy)
		}
		table = append(table, []string{q.Queue, state, strconv.FormatInt(q.Queued, 10), strconv.FormatInt(q.RetryPending, 10),
			strconv.FormatInt(q.Running, 10), strconv.FormatInt(q.Scheduled, 10), notServedText(q.NotServed, q.NotServedOldestAge),
			limitsText(q.Limits)})
	}
	return writeTable(e.stdout, []string{"QUEUE", "STATE", "QUEUED", "RETRY", "RUNNING", "SCHEDULED", "NOT SERVED", "LIMITS"}, table)
}

type queueActCmd struct {
	connFlags
	Queue string `arg:"" help:"queue name (jobq queues list)"`
}

func (c *queueActCmd) Run(e *env, kctx *kong.Context) error {
	verb := kctx.Selected().Name
	var changed bool
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		return conn.QueryRow(e.ctx, "SELECT jobq."+verb+"_queue($1)", c.Queue).Scan(&changed)
	})
	if err != nil {
		return err
	}
	state := map[string]string{"pause": "paused", "resume": "active"}[verb]
	if !changed {
		fmt.Fprintf(e.stdout, "queue %s: already %s\n", c.Queue, state)
		return nil
	}
	fmt.Fprintf(e.stdout, "queue %s: %s\n", c.Queue, state)
	return nil
}

// ---- schedules ----

type scheduleActCmd struct {
	connFlags
	Name string `arg:"" help:"schedule name (jobq schedules list)"`
}

func (c *scheduleActCmd) Run(e *env, kctx *kong.Context) error {
	verb := kctx.Selected().Name
	var changed bool
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		return conn.QueryRow(e.ctx, "SELECT jobq."+verb+"_schedule($1)", c.Name).Scan(&changed)
	})
	if err != nil {
		return err
	}
	state := map[string]string{"pause": "paused", "resume": "active"}[verb]
	if !changed {
		state = "already " + state
	}
	fmt.Fprintf(e.stdout, "schedule %s: %s\n", c.Name, state)
	return nil
}

type scheduleRunCmd struct {
	connFlags
	Name string `arg:"" help:"schedule name (jobq schedules list)"`
}

func (c *scheduleRunCmd) Run(e *env) error {
	var id int64
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		return conn.QueryRow(e.ctx, "SELECT jobq.run_schedule_now($1)", c.Name).Scan(&id)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "schedule %s: enqueued job %d\n", c.Name, id)
	return nil
}

// ---- leader ----

type leaderDemoteCmd struct {
	connFlags
}

func (c *leaderDemoteCmd) Run(e *env) error {
	var epoch int64
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		return conn.QueryRow(e.ctx, "SELECT jobq.demote_leader()").Scan(&epoch)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "leader demoted: epoch is now %d; a runner leads again when it wins the next election\n", epoch)
	return nil
}
