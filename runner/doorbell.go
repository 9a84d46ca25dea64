package runner

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// The doorbell (setting doorbell, with wakeup notify): an enqueue NOTIFYs only when a runner of
// its queue waits for work, so that a busy system's commits do not queue for the one lock every
// notifying commit takes. A runner waits when its last claim got fewer jobs than it asked for;
// then it holds its queues' doorbells (jobq.hold_doorbell, session advisory locks, shared) on its
// LISTEN connection, and enqueues in those queues notify. The race is an enqueue that probed
// before the doorbell was held, and committed after the claim that could not see its job: every
// enqueue holds its queue's "in flight" lock from its probe until after its commit is visible, so
// the runner asks jobq.doorbell_quiet (nobody holds it) and, when it says yes, claims once more;
// when it says no, it claims again after doorbellRetryMin, doubling up to doorbellRetryMax, and
// asks again. The runner lets go of its doorbells when a claim gets all it asked for (it claims
// again by itself) and when a notification wakes it (it is about to claim; holding on would make
// every enqueue notify while it catches up); it holds them again at its next short claim.
//
// The claim loop asks (arm, release) and the listener, which owns the connection, answers between
// two waits for notifications; a request interrupts the wait. The connection's locks go with it:
// after a reconnect the listener starts a new epoch, and the claim loop claims from the head and
// holds the doorbells again. An arm answered in an older epoch than the current one does not
// count: the doorbells it held are gone.

const (
	doorbellRetryMin = time.Millisecond       // first wait before claiming again while an enqueue is in flight
	doorbellRetryMax = 100 * time.Millisecond // the longest: an idle runner next to an open enqueuing transaction claims this often
)

type doorbellOp int

const (
	doorbellArm     doorbellOp = iota // hold the doorbells (if not held) and ask whether no enqueue is in flight
	doorbellRelease                   // let go of the doorbells
)

// doorbellAnswer is the listener's answer to an arm.
type doorbellAnswer struct {
	held  bool   // the doorbells are held on the listener connection
	quiet bool   // and no enqueue was in flight after they were: one more claim, then wait
	epoch uint64 // the connection epoch the answer holds for
	err   error  // the listener could not ask (its connection failed; it reconnects)
}

// doorbell is the channel between the claim loop and the listener for the doorbells of the
// runner's queues.
type doorbell struct {
	queues  []string
	reqs    chan doorbellOp     // claim loop → listener; at most one pending
	answers chan doorbellAnswer // listener → claim loop: answers to arms
	epoch   atomic.Uint64       // grows whenever the doorbells held are gone (reconnect, released)

	mu     sync.Mutex
	cancel context.CancelFunc // interrupts the listener's wait for notifications; nil while it does not wait

	held bool // held on the listener's connection (listener goroutine only)
}

func newDoorbell(queues []string) *doorbell {
	return &doorbell{queues: queues, reqs: make(chan doorbellOp, 2), answers: make(chan doorbellAnswer, 1)}
}

// ask queues op for the listener and interrupts its wait; it never blocks (a full queue drops a
// release, which the next full claim asks for again, or a duplicate arm).
func (d *doorbell) ask(op doorbellOp) bool {
	select {
	case d.reqs <- op:
	default:
		return false
	}
	d.mu.Lock()
	if d.cancel != nil {
		d.cancel()
	}
	d.mu.Unlock()
	return true
}

// waiting records cancel as the way to interrupt the listener's wait, or clears it (nil). It
// reports false when a request is pending: the listener serves it before it waits.
func (d *doorbell) waiting(cancel context.CancelFunc) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cancel = cancel
	return cancel == nil || len(d.reqs) == 0
}

// lost records that the connection holding the doorbells is gone (listener goroutine).
func (d *doorbell) lost() {
	d.held = false
	d.epoch.Add(1)
}

// serve answers the pending requests on conn (listener goroutine). An error is the connection's:
// the listener reconnects.
func (d *doorbell) serve(ctx context.Context, conn *pgx.Conn) error {
	for {
		var op doorbellOp
		select {
		case op = <-d.reqs:
		default:
			return nil
		}
		cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
		err := d.do(cctx, conn, op)
		cancel()
		if err != nil {
			if op == doorbellArm {
				d.answer(doorbellAnswer{err: err})
			}
			return err
		}
	}
}

func (d *doorbell) do(ctx context.Context, conn *pgx.Conn, op doorbellOp) error {
	switch op {
	case doorbellRelease:
		if !d.held {
			return nil
		}
		d.epoch.Add(1)
		d.held = false
		_, err := conn.Exec(ctx, `SELECT jobq.release_doorbell($1)`, d.queues)
		return err
	default:
		var quiet bool
		if !d.held {
			var held bool
			b := &pgx.Batch{}
			b.Queue(`SELECT jobq.hold_doorbell($1)`, d.queues).QueryRow(func(row pgx.Row) error { return row.Scan(&held) })
			b.Queue(`SELECT jobq.doorbell_quiet($1)`, d.queues).QueryRow(func(row pgx.Row) error { return row.Scan(&quiet) })
			if err := conn.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
			d.held = held
			quiet = held && quiet
		} else if err := conn.QueryRow(ctx, `SELECT jobq.doorbell_quiet($1)`, d.queues).Scan(&quiet); err != nil {
			return err
		}
		d.answer(doorbellAnswer{held: d.held, quiet: quiet, epoch: d.epoch.Load()})
		return nil
	}
}

func (d *doorbell) answer(a doorbellAnswer) {
	select {
	case d.answers <- a:
	default:
	}
}

// rang lets go of the doorbells after a notification for a served queue (listener goroutine):
// the epoch moves before the claim loop is woken, so that it does not wait on doorbells about to
// be let go; the caller wakes it, then calls release.
func (d *doorbell) rang() bool {
	if !d.held {
		return false
	}
	d.epoch.Add(1)
	return true
}

// release lets go of the doorbells on conn after rang (listener goroutine).
func (d *doorbell) release(ctx context.Context, conn *pgx.Conn) error {
	d.held = false
	cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
	defer cancel()
	_, err := conn.Exec(cctx, `SELECT jobq.release_doorbell($1)`, d.queues)
	return err
}

// bellState is the claim loop's side of the doorbell (claim loop only).
type bellState struct {
	bell    *doorbell
	armed   bool   // an arm answered held and quiet in epoch, and the claim after it ran
	epoch   uint64 // the epoch of that answer
	pending bool   // an arm was asked and not answered
	holding bool   // the doorbells may be held: an arm was asked since the last release
	retry   *time.Timer
	wait    time.Duration // the next wait before claiming again while an enqueue is in flight
}

func newBellState(bell *doorbell) *bellState {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &bellState{bell: bell, retry: t, wait: doorbellRetryMin}
}

// short follows a claim that got fewer jobs than it asked for: unless the doorbells are held and
// were quiet since, ask for that.
func (s *bellState) short() {
	if s.armed && s.epoch == s.bell.epoch.Load() {
		return
	}
	s.armed = false
	if !s.pending && s.bell.ask(doorbellArm) {
		s.pending = true
		s.holding = true
	}
}

// full follows a claim that got all it asked for: the runner claims again by itself.
func (s *bellState) full() {
	s.armed = false
	s.wait = doorbellRetryMin
	if s.holding && s.bell.ask(doorbellRelease) {
		s.holding = false
	}
}

// answered takes the listener's answer to an arm and reports whether to claim now: held and
// quiet, one more claim sees every job that did not ring. Otherwise the retry timer is armed.
func (s *bellState) answered(a doorbellAnswer) (claim bool) {
	s.pending = false
	if a.err == nil && a.quiet && a.epoch == s.bell.epoch.Load() {
		s.armed = true
		s.epoch = a.epoch
		s.wait = doorbellRetryMin
		return true
	}
	if a.err != nil {
		// The listener reconnects and then wakes the claim loop; until then the poll stands in.
		return false
	}
	s.retry.Reset(jitter(s.wait))
	s.wait = min(2*s.wait, doorbellRetryMax)
	return false
}
