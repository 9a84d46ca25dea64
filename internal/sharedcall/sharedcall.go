// Package sharedcall hands package internal/engine the statements it shares with package jobq,
// so that each SQL call has one implementation. The engine imports jobq (for Job, Lease, Outcome
// and the error mapping jobq.FromDB), so jobq cannot import the engine: jobq sets its calls here
// in its init, which runs before any importer of jobq initialises, and the engine reads them.
// The type parameters are jobq's own types; Set and Get must be given the same ones.
package sharedcall

import (
	"context"
	"time"
)

// Calls are jobq's statements that the engine calls too, with the arguments only the engine
// passes (the runner's claim positions and served tasks, a completion's output and exit status).
type Calls[DB, Job, Lease, Outcome any] struct {
	// Claim is jobq.claim_job: tasks nil claims every task; priority, runAt and id are one
	// element per queue (nil arrays: every queue from its head).
	Claim func(ctx context.Context, db DB, workerID string, queues, tasks []string, max int, lease time.Duration,
		priority []*int32, runAt []*time.Time, id []*int64) ([]Job, error)
	// Heartbeat is jobq.heartbeat_jobs; it also returns the database's now() of the call (zero
	// when no lease was renewed).
	Heartbeat func(ctx context.Context, db DB, workerID string, leases []Lease, lease time.Duration) (map[int64]time.Time, time.Time, error)
	// Complete is jobq.complete_jobs; outputs, logRefs and exitCodes are nil, or one per lease
	// ("" and nil: none).
	Complete func(ctx context.Context, db DB, leases []Lease, outputs, logRefs []string, exitCodes []*int) ([]Outcome, error)
}

var calls any

// Set records jobq's calls; package jobq calls it once, in its init.
func Set[DB, Job, Lease, Outcome any](c Calls[DB, Job, Lease, Outcome]) { calls = c }

// Get returns the calls Set recorded. It panics when the types differ from Set's, which every
// test of the engine would show at start-up.
func Get[DB, Job, Lease, Outcome any]() Calls[DB, Job, Lease, Outcome] {
	return calls.(Calls[DB, Job, Lease, Outcome])
}
