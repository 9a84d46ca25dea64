package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// An operator demotes the leader (jobq.demote_leader): the running leader stands down at once
// (its next maintain is fenced, or its next renewal refused) and is held off for leader_ttl, so
// it does not take the leadership straight back (issue 29: it did, 0.1 s after the demotion,
// with epoch 3); as the only candidate it leads again after the hold-off, with a newer epoch. A
// leader that an operator drains gives the leadership up to another runner and does not take it
// back while it drains.
func TestRunnerDemotedOrDrainedLeaderStandsDown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.setSetting(t, "leader_ttl", "3 seconds")
	b.setSetting(t, "maintain_interval", "100 milliseconds")
	b.setSetting(t, "worker_heartbeat_interval", "100 milliseconds")
	operator := b.db.Pool(t, "jobq_operator", 1)
	ctx := context.Background()
	newRunner := func(id string) *runner.Runner {
		cfg := b.config()
		cfg.WorkerID = id
		r, err := runner.New(cfg)
		require.NoError(t, err)
		return r
	}
	leads := func(id string, epoch int) func() bool {
		return func() bool {
			return b.count(t, `SELECT count(*) FROM jobq.leader WHERE holder = $1 AND epoch = $2 AND lease_expires_at > now()`, id, epoch) == 1
		}
	}
	start(t, newRunner("runner-a"))
	waitFor(t, waitCeiling, "runner-a leads with epoch 1", leads("runner-a", 1))

	var epoch int64
	require.NoError(t, operator.QueryRow(ctx, `SELECT jobq.demote_leader()`).Scan(&epoch))
	require.EqualValues(t, 2, epoch)
	waitFor(t, waitCeiling, "runner-a stands down", func() bool {
		return len(b.logs.lines("maintain fenced: this worker no longer leads with its epoch; standing down at once"))+
			len(b.logs.lines("leadership lost: an operator demoted this worker; it does not lead again before the hold-off ends")) == 1
	})
	waitFor(t, waitCeiling, "runner-a, the only candidate, leads again with epoch 3", leads("runner-a", 3))
	var demotedAt, reacquired time.Time
	var heldOffUntil *time.Time
	require.NoError(t, b.admin.QueryRow(ctx, `
		SELECT d.at, (d.detail ->> 'held_off_until')::timestamptz, l.acquired_at
		FROM jobq.audit_log d, jobq.leader l
		WHERE d.action = 'demote_leader' AND d.detail ->> 'holder' = 'runner-a' AND (d.detail ->> 'new_epoch')::int = 2`).
		Scan(&demotedAt, &heldOffUntil, &reacquired))
	t.Logf("runner-a led again %s after its demotion (leader_ttl 3s)", reacquired.Sub(demotedAt).Round(time.Millisecond))
	require.False(t, reacquired.Before(demotedAt.Add(3*time.Second)),
		"the demoted runner-a did not take the leadership back before leader_ttl had passed (it did after %s)", reacquired.Sub(demotedAt))
	require.NotNil(t, heldOffUntil)
	require.WithinDuration(t, demotedAt.Add(3*time.Second), *heldOffUntil, 0, "the audit row says until when it was held off")
	for _, l := range b.logs.lines("leadership acquired") {
		require.Contains(t, []float64{1, 3}, l["epoch"], "runner-a acquired epochs 1 and 3 only: %v", l)
	}

	start(t, newRunner("runner-b"))
	_, err := operator.Exec(ctx, `SELECT jobq.drain_worker('runner-a')`)
	require.NoError(t, err)
	waitFor(t, waitCeiling, "runner-b takes over with epoch 4", leads("runner-b", 4))
	// runner-a asks every leader_ttl / 3, as runner-b renews: by runner-b's second renewal after
	// the takeover, runner-a has asked too (and acquire_leadership refuses a draining worker,
	// pgtap/leader).
	var renewed time.Time
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT lease_expires_at FROM jobq.leader`).Scan(&renewed))
	for range 2 {
		waitFor(t, waitCeiling, "runner-b renews its lease", func() bool {
			return b.count(t, `SELECT count(*) FROM jobq.leader WHERE holder = 'runner-b' AND epoch = 4 AND lease_expires_at > $1`, renewed) == 1
		})
		require.NoError(t, b.admin.QueryRow(ctx, `SELECT lease_expires_at FROM jobq.leader`).Scan(&renewed))
	}
	require.True(t, leads("runner-b", 4)(), "the draining runner-a does not take the leadership back")
	for _, l := range b.logs.lines("leadership acquired") {
		if l["workerId"] == "runner-a" {
			require.Less(t, l["epoch"].(float64), 4.0, "runner-a acquired no epoch after its drain: %v", l)
		}
	}
}

// A paused queue (jobq.pause_queue) is skipped by a running runner at once, without a restart:
// its jobs wait while another queue's run. A resume makes them run at once (it wakes the runner).
func TestRunnerSkipsAPausedQueueUntilResumed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "work")
	ctx := context.Background()
	operator := b.db.Pool(t, "jobq_operator", 1)
	cfg := b.config()
	cfg.Queues = []string{"held", "default"}
	cfg.PollInterval = time.Hour // only a wake-up makes it claim again
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("work", func(ctx context.Context, job *jobq.Job) error { return nil })
	start(t, r)

	var changed bool
	require.NoError(t, operator.QueryRow(ctx, `SELECT jobq.pause_queue('held')`).Scan(&changed))
	require.True(t, changed)
	waiting := b.enqueue(t, "work", nil, jobq.EnqueueOptions{Queue: "held"})
	other := b.enqueue(t, "work", nil, jobq.EnqueueOptions{})
	b.waitState(t, other, "succeeded")
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, "queued", b.job(t, waiting).State, "the paused queue's job waits")

	require.NoError(t, operator.QueryRow(ctx, `SELECT jobq.resume_queue('held')`).Scan(&changed))
	require.True(t, changed)
	resumed := time.Now()
	b.waitState(t, waiting, "succeeded")
	t.Logf("the paused queue's job ran %s after the resume (poll interval 1h: the resume woke the runner)",
		time.Since(resumed).Round(time.Millisecond))
}
