package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/operator"
)

// jobq stats: one row per queue (and store) of Operator.Queues (jobq.queue_list: the rows of
// jobq.stats(queue, store_id) and the queues known without jobs), with the queue's flow controls
// in the words of jobq queues list (limitsText). --json writes the rows as jobq queues list does.

type statsCmd struct {
	connFlags
	jsonFlag
	Queue string `help:"only this queue"`
	Store string `help:"only this store id (uuid)"`
}

func (c *statsCmd) Run(e *env) error {
	if c.Store != "" && !uuidRE.MatchString(c.Store) {
		return usageError{fmt.Sprintf("--store %q: want a store id (a uuid)", c.Store)}
	}
	var stats []operator.Queue
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		stats, err = operator.New(conn).Queues(e.ctx, operator.QueueFilter{Queue: c.Queue, StoreID: c.Store})
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, stats)
	}
	secs := func(f *operator.Seconds) string {
		if f == nil {
			return "-"
		}
		d := f.Duration()
		if d < time.Second {
			return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
		}
		return shortDuration(d)
	}
	num := func(n int64) string { return strconv.FormatInt(n, 10) }
	table := make([][]string, 0, len(stats))
	for _, s := range stats {
		perMin := strconv.FormatFloat(s.SucceededPerMinute, 'f', 1, 64)
		table = append(table, []string{s.Queue, orDash(s.StoreID), num(s.Queued), num(s.RetryPending), num(s.Running),
			num(s.Scheduled), num(s.Blocked), secs(s.OldestDueAge), num(s.DeadLastHour), num(s.DeadLastDay), num(s.SucceededLastHour), perMin,
			secs(s.WaitP50) + "/" + secs(s.WaitP95), secs(s.RunP50) + "/" + secs(s.RunP95),
			notServedText(s.NotServed, s.NotServedOldestAge), limitsText(s.Limits)})
	}
	if err := writeTable(e.stdout, []string{"QUEUE", "STORE", "QUEUED", "RETRY", "RUNNING", "SCHEDULED", "BLOCKED", "LAG",
		"DEAD 1H", "DEAD 1D", "OK 1H", "OK/MIN", "WAIT P50/P95", "RUN P50/P95", "NOT SERVED", "LIMITS"}, table); err != nil {
		return err
	}
	return writeCountedAt(e, stats)
}

// writeCountedAt says, under a table of queue rows, when their live counts were taken, if they
// are the count jobq.maintain keeps (above the setting stats_cached_above live jobs) rather than
// a count made for this call; it writes nothing then.
func writeCountedAt(e *env, rows []operator.Queue) error {
	for _, r := range rows {
		if r.CountedAt != nil {
			_, err := fmt.Fprintf(e.stdout, "live counts as of %s: kept by jobq.maintain above stats_cached_above live jobs\n",
				r.CountedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
			return err
		}
	}
	return nil
}
