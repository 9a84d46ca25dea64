package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/getsentry/sentry-go"
)

// SentryOptions configure NewSentryReporter.
type SentryOptions struct {
	// DSN is the Sentry project's DSN; required.
	DSN string
	// Environment and Release tag every event; empty: none.
	Environment string
	Release     string
	// ServerName names the process in events; empty: the host name.
	ServerName string
}

// SentryReporter sends one Sentry event per dead job: the final failure of a job, never a
// failure that will be retried. It uses its own sentry-go client and hub, not sentry-go's
// global one, so two runners in one process do not share state.
type SentryReporter struct {
	client *sentry.Client
	hub    *sentry.Hub
}

// NewSentryReporter returns a Reporter that sends dead jobs to Sentry.
func NewSentryReporter(opts SentryOptions) (*SentryReporter, error) {
	client, err := sentry.NewClient(sentry.ClientOptions{
		Dsn:         opts.DSN,
		Environment: opts.Environment,
		Release:     opts.Release,
		ServerName:  opts.ServerName,
	})
	if err != nil {
		return nil, fmt.Errorf("runner: sentry: %w", err)
	}
	return &SentryReporter{client: client, hub: sentry.NewHub(client, sentry.NewScope())}, nil
}

// ReportDead sends one event for d, tagged with taskName, storeId, attempt and jobId, and
// grouped by task.
func (s *SentryReporter) ReportDead(_ context.Context, d DeadJob) {
	task := d.Task
	if task == "" {
		task = "(unknown)"
	}
	event := sentry.NewEvent()
	// One id per job and attempt: should a dead job ever be sent twice, Sentry keeps one event.
	sum := sha256.Sum256([]byte("jobq-dead:" + strconv.FormatInt(d.JobID, 10) + ":" + strconv.Itoa(d.Attempt)))
	event.EventID = sentry.EventID(hex.EncodeToString(sum[:16]))
	event.Level = sentry.LevelError
	event.Logger = "jobq"
	event.Message = fmt.Sprintf("job %d (%s) is dead after attempt %d: %s", d.JobID, task, d.Attempt, firstLine(d.Error))
	event.Fingerprint = []string{"jobq-dead", task}
	event.Tags = map[string]string{
		"taskName": task,
		"storeId":  d.StoreID,
		"attempt":  strconv.Itoa(d.Attempt),
		"jobId":    strconv.FormatInt(d.JobID, 10),
		"queue":    d.Queue,
		"reason":   d.Reason,
	}
	if d.Worker != "" {
		event.Tags["worker"] = d.Worker
	}
	event.Exception = []sentry.Exception{{Type: "jobq.JobDead", Value: d.Error}}
	event.Contexts = map[string]sentry.Context{"job": {
		"jobId": d.JobID, "taskName": task, "storeId": d.StoreID, "attempt": d.Attempt,
		"queue": d.Queue, "reason": d.Reason, "error": d.Error, "durationMs": ms(d.Duration),
	}}
	s.hub.CaptureEvent(event)
}

// Flush waits up to timeout for queued events to be sent and reports whether all were.
func (s *SentryReporter) Flush(timeout time.Duration) bool { return s.client.Flush(timeout) }
