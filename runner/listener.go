package runner

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/prometheus/client_golang/prometheus"
)

// WakeupMode is how a runner learns, between polls, that jobs are due (Config.Wakeup).
type WakeupMode string

const (
	// WakeupNotify LISTENs on ListenChannel on one dedicated connection with the pool's
	// settings. Enqueue NOTIFYs it while the database's setting wakeup is notify or both.
	WakeupNotify WakeupMode = "notify"
	// WakeupWAL reads the logical messages enqueue emits while the setting wakeup is wal or both,
	// from a temporary replication slot on one replication connection (Config.WakeupURL). Enqueue
	// then takes no NOTIFY lock at commit. See wal.go for the fallback to polling.
	WakeupWAL WakeupMode = "wal"
)

// waker wakes the claim loop when jobs may be due, until ctx ends.
type waker interface {
	run(ctx context.Context)
}

// wakeSignal is how everything that learns that jobs may be due (the listeners, the leader's
// sweep, a change of the worker's state) asks the claim loop to claim now. It holds at most one
// pending wake-up: signals that arrive before the claim loop takes it are one claim. The zero
// value is not usable; see newWakeSignal.
type wakeSignal struct {
	ch     chan struct{}
	queues []string // the runner's queues
}

// newWakeSignal returns a wakeSignal for a runner serving queues.
func newWakeSignal(queues []string) *wakeSignal {
	return &wakeSignal{ch: make(chan struct{}, 1), queues: queues}
}

// notify asks for a claim now; it never blocks.
func (w *wakeSignal) notify() {
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// forQueue asks for a claim when queue (a NOTIFY payload or a logical message's content) is one
// of the runner's queues, or empty, and reports whether it did.
func (w *wakeSignal) forQueue(queue string) bool {
	if queue == "" || slices.Contains(w.queues, queue) {
		w.notify()
		return true
	}
	return false
}

// C is the channel the claim loop receives wake-ups on.
func (w *wakeSignal) C() <-chan struct{} { return w.ch }

// ListenChannel is the channel jobq's enqueue NOTIFYs, with the queue name as payload.
const ListenChannel = "jobq"

// ControlChannel is the channel jobq.detach_worker NOTIFYs, with payload "detached:<worker id>",
// so that the detached runner confirms its jobs' continuation before their deadline rather than
// at its next worker heartbeat. Runners in WAL mode do not listen: they learn at their next
// worker heartbeat.
const ControlChannel = "jobq_control"

// ListenerApplicationName is the application_name of the runner's LISTEN connection, so an
// operator (or a test) can find it in pg_stat_activity.
const ListenerApplicationName = "jobq-listener"

const (
	// listenerIdle is how long the listener waits for a notification before it checks that its
	// connection still answers; a connection that went silently away is found within it.
	listenerIdle    = 10 * time.Second
	listenerPing    = 5 * time.Second
	listenerBackoff = 100 * time.Millisecond
	listenerMaxWait = 5 * time.Second
)

// listener keeps one dedicated connection LISTENing and wakes the claim loop on notifications
// for the runner's queues. It reconnects with jittered backoff (100 ms doubling up to 5
// seconds); after each (re)connect it LISTENs again and wakes the claim loop at once, because
// notifications sent while it was away are lost. It needs only a connection source, the wake-up
// signal, a gauge and a logger.
type listener struct {
	connConfig  *pgx.ConnConfig  // the connection source: a copy is dialled at every (re)connect
	wake        *wakeSignal      // notified after every (re)connect and on each notification for a served queue
	up          prometheus.Gauge // 1 while connected and listening (jobq_listener_connected)
	log         *slog.Logger
	control     func(payload string) // told each notification on ControlChannel; nil: ignored
	bell        *doorbell            // the doorbells held on the connection (doorbell.go); nil: none
	reconnected func()               // called after each (re)connect but the first, before the wake-up; nil: nothing
}

// newListener returns a listener that connects with a copy of connConfig, its
// application_name set to ListenerApplicationName.
func newListener(connConfig *pgx.ConnConfig, wake *wakeSignal, up prometheus.Gauge, log *slog.Logger) *listener {
	return &listener{connConfig: connConfig, wake: wake, up: up, log: log}
}

// run listens until ctx ends.
func (l *listener) run(ctx context.Context) {
	wait := listenerBackoff
	errs := newErrorLog(l.log, "listener connection failed; polling goes on")
	connected := false
	for ctx.Err() == nil {
		conn, err := l.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			errs.failed(err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(jitter(wait)):
			}
			wait = min(2*wait, listenerMaxWait)
			continue
		}
		errs.ok()
		wait = listenerBackoff
		l.up.Set(1)
		l.log.Info("listening", "channel", ListenChannel, "pid", conn.PgConn().PID())
		if connected && l.reconnected != nil {
			l.reconnected()
		}
		connected = true
		l.wake.notify() // anything enqueued while we were not listening
		err = l.wait(ctx, conn)
		l.up.Set(0)
		if l.bell != nil {
			l.bell.lost() // its session locks went with the connection
		}
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = conn.Close(closeCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("listener connection lost; reconnecting", "error", errString(err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(jitter(wait)):
		}
	}
}

func (l *listener) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg := l.connConfig.Copy()
	cfg.RuntimeParams["application_name"] = ListenerApplicationName
	// A doorbell request interrupts the wait for notifications at once, without closing the
	// connection (a deadline on the socket; a cancel request would only come after a delay).
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: pc.Conn()}
	}
	cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, err
	}
	for _, channel := range []string{ListenChannel, ControlChannel} {
		if _, err := conn.Exec(cctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
			_ = conn.Close(context.Background())
			return nil, err
		}
	}
	return conn, nil
}

// wait waits for notifications until the connection fails or ctx ends. A wait that times out
// means "check the connection and wait again": claiming does not depend on it, the claim loop
// polls on its own. Between two waits it serves the claim loop's doorbell requests, which
// interrupt a wait.
func (l *listener) wait(ctx context.Context, conn *pgx.Conn) error {
	for {
		if l.bell != nil {
			if err := l.bell.serve(ctx, conn); err != nil {
				return err
			}
		}
		wctx, cancel := context.WithTimeout(ctx, listenerIdle)
		if l.bell != nil && !l.bell.waiting(cancel) {
			cancel()
			continue // a request came: serve it first
		}
		n, err := conn.WaitForNotification(wctx)
		if l.bell != nil {
			l.bell.waiting(nil)
		}
		interrupted := errors.Is(wctx.Err(), context.Canceled) && ctx.Err() == nil
		cancel()
		switch {
		case err == nil:
			switch {
			case n.Channel == ListenChannel:
				rang := false
				if l.bell != nil && slices.Contains(l.wake.queues, n.Payload) {
					rang = l.bell.rang()
				}
				l.wake.forQueue(n.Payload)
				if rang {
					// The claim loop just woken runs first, on this goroutine's processor, and
					// sends its claim before the release below goes out: otherwise it waits for
					// another processor to wake (35 µs at the median against 7, the latency
					// scenario on 2 cores; docs/benchmarks.md).
					runtime.Gosched()
					// Woken, the claim loop claims: it holds the doorbells again when a claim
					// comes back short. Until then enqueues need not notify.
					if err := l.bell.release(ctx, conn); err != nil {
						return err
					}
				}
			case n.Channel == ControlChannel && l.control != nil:
				l.control(n.Payload)
			}
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case interrupted && !conn.IsClosed():
			continue
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			pctx, cancel := context.WithTimeout(ctx, listenerPing)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return err
			}
		default:
			return err
		}
	}
}
