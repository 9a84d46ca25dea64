package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/alecthomas/kong"
	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/operator"
)

// The operator's controls: pausing and resuming queues and schedules, running a schedule now and
// demoting the leader. Each is one call of package operator (one SQL function, docs/sql-api.md,
// Operators), audited there with the login as actor.

// ---- queues ----

type queuesCmd struct {
	List   queuesListCmd `cmd:"" help:"List every known queue: paused or not, jobs by state, the waiting jobs no live worker serves (jobq.queue_list, the rows of jobq stats)."`
	Pause  queueActCmd   `cmd:"" help:"Pause a queue: no claim takes its jobs until it is resumed; enqueue still works (jobq.pause_queue)."`
	Resume queueActCmd   `cmd:"" help:"Resume a paused queue; its due jobs are claimed at once (jobq.resume_queue)."`
	Limit  queueLimitCmd `cmd:"" help:"Set or remove a queue's concurrency and rate limits and fair claiming (jobq.set_concurrency_limit and its siblings, jobq.set_fair_claiming; docs/flow-control.md)."`
}

// notServedText is the NOT SERVED cell of queues list: "0", or the count and the oldest due
// one's age ("3, oldest 5m"; "3" when none of them is due yet).
func notServedText(n int64, oldest *operator.Seconds) string {
	text := strconv.FormatInt(n, 10)
	if n > 0 && oldest != nil {
		text += ", oldest " + shortDuration(oldest.Duration())
	}
	return text
}

type queuesListCmd struct {
	connFlags
	jsonFlag
}

func (c *queuesListCmd) Run(e *env) error {
	var qs []operator.Queue
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		qs, err = operator.New(conn).Queues(e.ctx, operator.QueueFilter{})
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
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
			strconv.FormatInt(q.Running, 10), strconv.FormatInt(q.Scheduled, 10), strconv.FormatInt(q.Blocked, 10), notServedText(q.NotServed, q.NotServedOldestAge),
			limitsText(q.Limits)})
	}
	if err := writeTable(e.stdout, []string{"QUEUE", "STATE", "QUEUED", "RETRY", "RUNNING", "SCHEDULED", "BLOCKED", "NOT SERVED", "LIMITS"}, table); err != nil {
		return err
	}
	return writeCountedAt(e, qs)
}

type queueActCmd struct {
	connFlags
	Queue string `arg:"" help:"queue name (jobq queues list)"`
}

func (c *queueActCmd) Run(e *env, kctx *kong.Context) error {
	verb := kctx.Selected().Name
	var changed bool
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		act := operator.New(conn).PauseQueue
		if verb == "resume" {
			act = operator.New(conn).ResumeQueue
		}
		var err error
		changed, err = act(e.ctx, c.Queue)
		return err
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
		act := operator.New(conn).PauseSchedule
		if verb == "resume" {
			act = operator.New(conn).ResumeSchedule
		}
		var err error
		changed, err = act(e.ctx, c.Name)
		return err
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
		var err error
		id, err = operator.New(conn).RunScheduleNow(e.ctx, c.Name)
		return err
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
		var err error
		epoch, err = operator.New(conn).DemoteLeader(e.ctx)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "leader demoted: epoch is now %d; a runner leads again when it wins the next election\n", epoch)
	return nil
}
