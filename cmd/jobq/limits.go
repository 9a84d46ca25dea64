package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/operator"
)

// jobq queues limit: one Operator call (a limit's SQL function) per flag given (docs/flow-control.md),
// all in one transaction, so a refused value changes none of them. Each call is audited there.
// --fair / --no-fair is one more of them: jobq.set_fair_claiming.

type queueLimitCmd struct {
	connFlags
	Queue        string `arg:"" help:"queue name (jobq queues list)"`
	MaxRunning   string `name:"max-running" placeholder:"N|none" help:"at most N jobs of the queue running across every worker; none removes it"`
	PerStore     string `name:"per-store" placeholder:"N|none" help:"at most N running per store (system jobs count as one more store); none removes it"`
	PartitionKey string `name:"partition-key" placeholder:"FIELD" help:"with --per-partition N: the payload field whose values are limited"`
	PerPartition string `name:"per-partition" placeholder:"N|none" help:"at most N running per value of --partition-key; none removes it"`
	Rate         string `name:"rate" placeholder:"N/DURATION|none" help:"at most N jobs started in any window of DURATION (e.g. 10/1m); none removes it"`
	StoreRate    string `name:"store-rate" placeholder:"N/DURATION|none" help:"at most N jobs started per store in any window of DURATION; none removes it"`
	Fair         *bool  `name:"fair" negatable:"" help:"--fair: claims serve the queue's stores in turn (jobq.set_fair_claiming); --no-fair: plain order again"`
}

// limitCall is one Operator call the command makes and how it reports it.
type limitCall struct {
	what string // what the line says was set, e.g. "max_running 5"
	set  func(ctx context.Context, op *operator.Operator) (bool, error)
}

func (c *queueLimitCmd) Run(e *env) error {
	calls, err := c.calls()
	if err != nil {
		return err
	}
	if len(calls) == 0 {
		return usageError{"queues limit needs at least one of --max-running, --per-store, --per-partition, --rate, --store-rate, --fair, --no-fair"}
	}
	changed := make([]bool, len(calls))
	err = c.withConn(e.ctx, func(conn *pgx.Conn) error {
		return pgx.BeginFunc(e.ctx, conn, func(tx pgx.Tx) error {
			op := operator.New(tx)
			for i, call := range calls {
				var err error
				if changed[i], err = call.set(e.ctx, op); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	for i, call := range calls {
		state := call.what
		if !changed[i] {
			state += " (unchanged)"
		}
		fmt.Fprintf(e.stdout, "queue %s: %s\n", c.Queue, state)
	}
	return nil
}

// calls turns the flags into SQL calls, refusing a malformed value as a usage error. The
// database checks the ranges.
func (c *queueLimitCmd) calls() ([]limitCall, error) {
	var calls []limitCall
	add := func(flag, value, what string, set func(*operator.Operator, context.Context, string, *int64) (bool, error)) error {
		if value == "" {
			return nil
		}
		n, err := limitValue(flag, value)
		if err != nil {
			return err
		}
		calls = append(calls, limitCall{what: what + " " + orNone(n), set: func(ctx context.Context, op *operator.Operator) (bool, error) {
			return set(op, ctx, c.Queue, n)
		}})
		return nil
	}
	if err := add("--max-running", c.MaxRunning, "max_running", (*operator.Operator).SetConcurrencyLimit); err != nil {
		return nil, err
	}
	if err := add("--per-store", c.PerStore, "max_running_per_store", (*operator.Operator).SetStoreConcurrencyLimit); err != nil {
		return nil, err
	}
	if c.PerPartition != "" {
		n, err := limitValue("--per-partition", c.PerPartition)
		if err != nil {
			return nil, err
		}
		if (n == nil) != (c.PartitionKey == "") {
			return nil, usageError{"--per-partition N goes with --partition-key FIELD; --per-partition none without it"}
		}
		calls = append(calls, limitCall{what: "max_running_per_partition " + orNone(n) + partitionText(c.PartitionKey),
			set: func(ctx context.Context, op *operator.Operator) (bool, error) {
				return op.SetPartitionConcurrencyLimit(ctx, c.Queue, c.PartitionKey, n)
			}})
	} else if c.PartitionKey != "" {
		return nil, usageError{"--partition-key goes with --per-partition N"}
	}
	for _, r := range []struct {
		flag, value, what string
		set               func(*operator.Operator, context.Context, string, *int64, time.Duration) (bool, error)
	}{
		{"--rate", c.Rate, "started", (*operator.Operator).SetRateLimit},
		{"--store-rate", c.StoreRate, "started per store", (*operator.Operator).SetStoreRateLimit},
	} {
		if r.value == "" {
			continue
		}
		n, per, err := rateValue(r.flag, r.value)
		if err != nil {
			return nil, err
		}
		what := r.what + " none"
		if n != nil {
			what = fmt.Sprintf("%s at most %d per %s", r.what, *n, per)
		}
		set := r.set
		calls = append(calls, limitCall{what: what, set: func(ctx context.Context, op *operator.Operator) (bool, error) {
			return set(op, ctx, c.Queue, n, per)
		}})
	}
	if c.Fair != nil {
		what := "fair claiming off"
		if *c.Fair {
			what = "fair claiming on"
		}
		fair := *c.Fair
		calls = append(calls, limitCall{what: what, set: func(ctx context.Context, op *operator.Operator) (bool, error) {
			return op.SetFairClaiming(ctx, c.Queue, fair)
		}})
	}
	return calls, nil
}

// limitValue parses N or none (nil).
func limitValue(flag, v string) (*int64, error) {
	if v == "none" {
		return nil, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return nil, usageError{fmt.Sprintf("%s %q: want a whole number or none", flag, v)}
	}
	return &n, nil
}

// rateValue parses N/DURATION (a Go duration: 500ms, 10s, 1m, 1h) or none.
func rateValue(flag, v string) (*int64, time.Duration, error) {
	if v == "none" {
		return nil, 0, nil
	}
	count, window, ok := strings.Cut(v, "/")
	n, err := strconv.ParseInt(count, 10, 32)
	d, derr := time.ParseDuration(window)
	if !ok || err != nil || derr != nil {
		return nil, 0, usageError{fmt.Sprintf("%s %q: want N/DURATION such as 10/1m, or none", flag, v)}
	}
	return &n, d, nil
}

func orNone(n *int64) string {
	if n == nil {
		return "none"
	}
	return strconv.FormatInt(*n, 10)
}

func partitionText(key string) string {
	if key == "" {
		return ""
	}
	return " by payload field " + key
}

// limitsText is a queue's limits in one cell of queues list and stats: "-" when it has none.
func limitsText(l map[string]any) string {
	if len(l) == 0 {
		return "-"
	}
	var parts []string
	if v, ok := l["max_running"]; ok {
		parts = append(parts, "running<="+limitNumber(v))
	}
	if v, ok := l["max_running_per_store"]; ok {
		parts = append(parts, "per store<="+limitNumber(v))
	}
	if v, ok := l["max_running_per_partition"]; ok {
		parts = append(parts, fmt.Sprintf("per %v<=%s", l["partition_key"], limitNumber(v)))
	}
	if v, ok := l["max_started"]; ok {
		parts = append(parts, fmt.Sprintf("%s started/%v", limitNumber(v), l["started_per"]))
	}
	if v, ok := l["max_started_per_store"]; ok {
		parts = append(parts, fmt.Sprintf("%s started/%v per store", limitNumber(v), l["store_started_per"]))
	}
	if v, ok := l["fair"]; ok && v == true {
		parts = append(parts, "fair")
	}
	return strings.Join(parts, ", ")
}

// limitNumber is a count of the limits object as digits: JSON numbers arrive as float64, which
// %v would write 1e+06.
func limitNumber(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
