package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The WAL wake-up (Config.Wakeup = WakeupWAL). While the setting wakeup is wal or both, enqueue
// emits pg_logical_emit_message(true, 'jobq', <queue>) once per queue that got a due job. The
// runner holds one replication connection as jobq_waker, creates a TEMPORARY logical slot with
// the built-in pgoutput plugin, and streams with messages on and the publication jobq_wakeup,
// which publishes no table: what reaches the runner is the wake-up messages of committed
// transactions, with queue names and nothing of the jobs. The server drops a temporary slot when
// the connection ends for any reason (Run returning, a crash, kill -9, a network cut noticed by
// wal_sender_timeout), so an abandoned slot never holds WAL back. The runner confirms what it has
// read (standby status updates) every second, so the slot's confirmed_flush_lsn follows the
// server's WAL position closely.
//
// When the slot cannot be had — wal_level is not logical, the role lacks REPLICATION or is
// refused by pg_hba.conf, no slot or WAL sender is free, the publication is missing, the
// connection is refused or lost — the runner polls every PollInterval (it always does), logs
// why with a hint, sets jobq_wakeup_fallback to 1, counts jobq_wakeup_fallbacks_total{reason},
// and tries again with jittered backoff up to 30 seconds. Every (re)connect wakes the claim loop
// once, because messages sent while no slot existed are not kept for anyone.

// Names the WAL wake-up uses.
const (
	// WakeupPublication is the publication the runner names to pgoutput (migration 00018 creates
	// it, without tables).
	WakeupPublication = "jobq_wakeup"
	// WakeupMessagePrefix is the prefix of the logical messages enqueue emits; the content is
	// the queue name.
	WakeupMessagePrefix = "jobq"
	// WakerRole is the login Config.WakeupURL defaults to: bootstrap creates it with REPLICATION
	// and no other right.
	WakerRole = "jobq_waker"
	// WakerApplicationName is the application_name of the replication connection, unless
	// Config.WakeupURL sets one; pg_stat_replication shows it.
	WakerApplicationName = "jobq-waker"
	// WakeupSlotPrefix starts the name of every slot a runner creates; the rest is the worker id
	// (reduced to [a-z0-9_]) and a random suffix, new for every connection.
	WakeupSlotPrefix = "jobq_wakeup_"
)

const (
	walStatusInterval      = time.Second      // how often the position read is confirmed when it moved
	walStatusMaxInterval   = 10 * time.Second // a status update at least this often, well inside wal_sender_timeout
	walOpenTimeout         = 30 * time.Second // connect and create the slot, which waits for running transactions
	walBackoff             = 500 * time.Millisecond
	walMaxWait             = 30 * time.Second
	walFallbackLogInterval = time.Minute // a fallback for the same reason is logged again after this
)

// After the last wake-up message for a served queue the claim loop is woken twice more, after
// walRewakeSoon and after walRewakeLate. A logical message can arrive before its transaction is
// visible to other sessions: the walsender decodes a commit once it is flushed, and the
// committing backend leaves the running transactions only after that, so a claim made at once
// may not see the job yet. (A NOTIFY is delivered after that point.) The late wakes catch it.
const (
	walRewakeSoon = 50 * time.Millisecond
	walRewakeLate = 500 * time.Millisecond
)

// Reasons of jobq_wakeup_fallbacks_total.
const (
	fallbackWALLevel   = "wal_level"  // wal_level is not logical
	fallbackPrivilege  = "privilege"  // the role lacks REPLICATION
	fallbackAuth       = "auth"       // pg_hba.conf, password or a missing role
	fallbackNoSlot     = "no_slot"    // max_replication_slots or max_wal_senders reached
	fallbackSchema     = "schema"     // the publication jobq_wakeup is missing: migrations behind
	fallbackTimeout    = "timeout"    // connecting or creating the slot took longer than walOpenTimeout
	fallbackConnection = "connection" // refused, cut, or ended by the server
	fallbackOther      = "other"
)

var fallbackReasons = []string{fallbackWALLevel, fallbackPrivilege, fallbackAuth, fallbackNoSlot, fallbackSchema,
	fallbackTimeout, fallbackConnection, fallbackOther}

var errNoPublication = errors.New("publication " + WakeupPublication + " does not exist in this database")

// wakerConnConfig returns the replication connection's settings: url parsed, or, when url is
// empty, the pool's host, port, database, TLS and timeouts with user jobq_waker and no password.
// It adds replication=database and application_name, and makes a timed-out wait expire the
// socket's deadline rather than send a cancel request (which would end the replication).
func wakerConnConfig(pool *pgxpool.Pool, url string) (*pgconn.Config, error) {
	var cfg *pgconn.Config
	if url == "" {
		cfg = pool.Config().ConnConfig.Config.Copy()
		cfg.User = WakerRole
		cfg.Password = ""
		cfg.RuntimeParams = map[string]string{}
	} else {
		parsed, err := pgconn.ParseConfig(url)
		if err != nil {
			return nil, err
		}
		cfg = parsed
	}
	cfg.RuntimeParams["replication"] = "database"
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = WakerApplicationName
	}
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	return cfg, nil
}

// rowQuerier runs a query that returns at most one row; *pgxpool.Pool, *pgx.Conn and pgx.Tx
// satisfy it.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// walListener keeps one replication stream of wake-up messages, or falls back to polling. It
// needs only the replication connection's settings, the worker id (for slot names), the wake-up
// signal, a way to read the setting wakeup, the poll interval (for its logs), its metrics and a
// logger.
type walListener struct {
	cfg          *pgconn.Config       // the replication connection (see wakerConnConfig)
	workerID     string               // names the slots
	wake         *wakeSignal          // notified after every (re)connect and on messages for a served queue
	settings     rowQuerier           // reads jobq.settings' wakeup, to warn when enqueue sends no message
	pollInterval func() time.Duration // for the fallback's log line
	m            wakeupMetrics
	log          *slog.Logger
}

// newWALListener returns a WAL listener; see walListener for what each argument serves.
func newWALListener(cfg *pgconn.Config, workerID string, wake *wakeSignal, settings rowQuerier,
	pollInterval func() time.Duration, m wakeupMetrics, log *slog.Logger) *walListener {
	return &walListener{cfg: cfg, workerID: workerID, wake: wake, settings: settings, pollInterval: pollInterval, m: m, log: log}
}

// run streams, or waits to stream again, until ctx ends.
func (w *walListener) run(ctx context.Context) {
	m := w.m
	wait := walBackoff
	var lastReason string
	var lastLogged time.Time
	for ctx.Err() == nil {
		s, err := w.open(ctx)
		if err == nil {
			streamed := time.Now()
			lastReason = ""
			m.fallback.Set(0)
			m.connected.Set(1)
			m.slot.Store(&s.slot)
			w.log.Info("waking on WAL", "slot", s.slot, "publication", WakeupPublication, "user", w.cfg.User,
				"pid", s.conn.PID())
			w.checkSetting(ctx)
			w.wake.notify() // anything enqueued while no slot existed
			err = s.run(ctx)
			m.connected.Set(0)
			m.slot.Store(nil)
			s.close()
			// Only a stream that lasted resets the backoff: a server that accepts the slot and
			// ends the stream at once (an invalidated slot, a terminating walsender) must not be
			// reconnected to in a tight loop.
			if time.Since(streamed) >= walMaxWait {
				wait = walBackoff
			}
		}
		if ctx.Err() != nil {
			return
		}
		reason, hint := fallbackReason(err)
		m.fallback.Set(1)
		m.fallbacks.WithLabelValues(reason).Inc()
		if reason != lastReason || time.Since(lastLogged) >= walFallbackLogInterval {
			w.log.Warn("WAL wake-up unavailable; waking by polling until it is back", "reason", reason,
				"error", errString(err), "hint", hint, "pollIntervalMs", w.pollInterval().Milliseconds(),
				"retryInMs", wait.Milliseconds())
			lastReason, lastLogged = reason, time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(jitter(wait)):
		}
		wait = min(2*wait, walMaxWait)
	}
}

// open connects, checks the publication, creates a temporary slot and starts streaming from it.
func (w *walListener) open(ctx context.Context) (*walStream, error) {
	octx, cancel := context.WithTimeout(ctx, walOpenTimeout)
	defer cancel()
	conn, err := pgconn.ConnectConfig(octx, w.cfg)
	if err != nil {
		return nil, fmt.Errorf("connect as %s: %w", w.cfg.User, err)
	}
	s := &walStream{w: w, conn: conn, slot: slotName(w.workerID)}
	for i := range s.rewake {
		s.rewake[i] = time.AfterFunc(time.Hour, w.wake.notify)
		s.rewake[i].Stop()
	}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()
	res, err := conn.Exec(octx, "SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = '"+WakeupPublication+"'").ReadAll()
	if err != nil {
		return nil, fmt.Errorf("look up publication %s: %w", WakeupPublication, err)
	}
	if len(res) != 1 || len(res[0].Rows) == 0 {
		return nil, errNoPublication
	}
	created, err := pglogrepl.CreateReplicationSlot(octx, conn, s.slot, "pgoutput", pglogrepl.CreateReplicationSlotOptions{
		Temporary: true, SnapshotAction: "NOEXPORT_SNAPSHOT", Mode: pglogrepl.LogicalReplication})
	if err != nil {
		return nil, fmt.Errorf("create temporary slot %s: %w", s.slot, err)
	}
	if s.pos, err = pglogrepl.ParseLSN(created.ConsistentPoint); err != nil {
		return nil, fmt.Errorf("slot %s: consistent point %q: %w", s.slot, created.ConsistentPoint, err)
	}
	err = pglogrepl.StartReplication(octx, conn, s.slot, s.pos, pglogrepl.StartReplicationOptions{
		Mode:       pglogrepl.LogicalReplication,
		PluginArgs: []string{"proto_version '1'", "publication_names '" + WakeupPublication + "'", "messages 'true'"},
	})
	if err != nil {
		return nil, fmt.Errorf("start replication from slot %s: %w", s.slot, err)
	}
	s.confirmed = s.pos
	ok = true
	return s, nil
}

// checkSetting warns when the database's setting wakeup sends no message for this runner to read.
func (w *walListener) checkSetting(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
	defer cancel()
	var mode string
	err := w.settings.QueryRow(cctx, "SELECT value FROM jobq.settings WHERE name = 'wakeup'").Scan(&mode)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		w.log.Warn("the setting wakeup is missing: enqueue emits no wake-up message, so this runner wakes by polling",
			"hint", "run jobq migrate up (migration 00018 adds it)")
	case err != nil:
		// Not worth more than a debug line: the stream works either way.
		w.log.Debug("reading the setting wakeup failed", "error", err.Error())
	case mode != string(WakeupWAL) && mode != "both":
		w.log.Warn("the setting wakeup is "+mode+": enqueue emits no wake-up message, so this runner wakes by polling",
			"hint", "SELECT jobq.set_setting('wakeup', 'both') while runners move to WAL mode, then 'wal'")
	}
}

// slotName is a new slot name for this worker: unique per connection, at most 63 characters.
func slotName(workerID string) string {
	var b strings.Builder
	b.WriteString(WakeupSlotPrefix)
	n := 0
	for _, c := range strings.ToLower(workerID) {
		if n == 38 {
			break
		}
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
		n++
	}
	fmt.Fprintf(&b, "_%08x", rand.Uint32())
	return b.String()
}

// fallbackReason sorts an error of the WAL listener into a reason of jobq_wakeup_fallbacks_total
// and an operator's hint.
func fallbackReason(err error) (reason, hint string) {
	var pgErr *pgconn.PgError
	var netErr net.Error
	switch {
	case errors.Is(err, errNoPublication):
		return fallbackSchema, "run jobq migrate up: migration 00018 creates the publication " + WakeupPublication
	case errors.As(err, &pgErr):
		switch pgErr.Code {
		case "55000": // object_not_in_prerequisite_state: "logical decoding requires wal_level >= logical"
			if strings.Contains(pgErr.Message, "wal_level") {
				return fallbackWALLevel, "set wal_level = logical (it takes a restart)"
			}
		case "42501": // insufficient_privilege: "must be superuser or replication role to start walsender"
			return fallbackPrivilege, "connect the WAL wake-up as " + WakerRole + " (LOGIN REPLICATION, made by jobq bootstrap) " +
				"through Config.WakeupURL; never give worker_runtime REPLICATION"
		case "28000", "28P01": // invalid_authorization_specification, invalid_password
			return fallbackAuth, "check Config.WakeupURL (the password of " + WakerRole + ") and pg_hba.conf: allow " +
				WakerRole + " on the application database's entry, not on the replication entry; run jobq bootstrap when the role is missing"
		case "53400", "53300": // configuration_limit_exceeded (slots), too_many_connections (WAL senders)
			return fallbackNoSlot, "each runner in WAL mode holds one replication slot and one WAL sender: raise " +
				"max_replication_slots and max_wal_senders (a restart), or run fewer runners in WAL mode"
		case "57P01", "57P02", "57P03": // the server shuts down, crashed or is starting
			return fallbackConnection, "the server restarts; the runner reconnects"
		}
		if strings.Contains(pgErr.Message, "messages") {
			return fallbackOther, "pgoutput reads logical messages from PostgreSQL 14 on; use Wakeup notify on older servers"
		}
		return fallbackOther, "see the error"
	case pgconn.Timeout(err), errors.Is(err, context.DeadlineExceeded):
		return fallbackTimeout, "a new logical slot waits until the transactions running in the cluster when it was asked " +
			"for have ended: look for a long transaction (pg_stat_activity.xact_start); the runner tries again"
	case errors.As(err, &netErr), errors.Is(err, errStreamEnded):
		return fallbackConnection, "the runner reconnects with backoff"
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return fallbackConnection, "check that PostgreSQL accepts connections at Config.WakeupURL (or the pool's host)"
	}
	return fallbackConnection, "the runner reconnects with backoff"
}

var errStreamEnded = errors.New("the server ended the replication stream")

// walStream is one replication connection streaming from its temporary slot.
type walStream struct {
	w         *walListener
	conn      *pgconn.PgConn
	slot      string
	pos       pglogrepl.LSN  // the furthest position the server says it has sent
	confirmed pglogrepl.LSN  // the position last confirmed
	reply     bool           // the server asked for a status update
	rewake    [2]*time.Timer // the late wakes, after walRewakeSoon and walRewakeLate
}

// run reads the stream until it fails or ctx ends, waking the claim loop on each message for one
// of the runner's queues and confirming what it read. A busy database sends thousands of
// messages a second (Begin, Message, Commit for every enqueue), so a read waits on the socket's
// deadline, moved about twice a second, rather than on a context of its own.
func (s *walStream) run(ctx context.Context) error {
	netConn := s.conn.Conn()
	// The end of ctx interrupts a blocked read and a blocked status update alike.
	stop := context.AfterFunc(ctx, func() { _ = netConn.SetDeadline(time.Now()) })
	defer stop()
	lastStatus := time.Now()
	var deadline time.Time
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := time.Now()
		if s.reply || (s.pos > s.confirmed && now.Sub(lastStatus) >= walStatusInterval) ||
			now.Sub(lastStatus) >= walStatusMaxInterval {
			if err := s.confirm(ctx); err != nil {
				return err
			}
			lastStatus = now
		}
		if deadline.Sub(now) < walStatusInterval/2 {
			deadline = now.Add(walStatusInterval)
			if err := netConn.SetReadDeadline(deadline); err != nil {
				return err
			}
		}
		msg, err := s.conn.ReceiveMessage(context.Background())
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return ctx.Err()
		case pgconn.Timeout(err):
			deadline = time.Time{}
			continue
		default:
			return err
		}
		switch msg := msg.(type) {
		case *pgproto3.CopyData:
			if err := s.handle(msg.Data); err != nil {
				return err
			}
		case *pgproto3.ErrorResponse:
			return pgconn.ErrorResponseToPgError(msg)
		case *pgproto3.CopyDone:
			return errStreamEnded
		}
	}
}

// handle reads one CopyData message of the stream: a keepalive or decoded data.
func (s *walStream) handle(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	switch data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		k, err := pglogrepl.ParsePrimaryKeepaliveMessage(data[1:])
		if err != nil {
			return fmt.Errorf("keepalive: %w", err)
		}
		s.pos = max(s.pos, k.ServerWALEnd)
		s.reply = s.reply || k.ReplyRequested
	case pglogrepl.XLogDataByteID:
		x, err := pglogrepl.ParseXLogData(data[1:])
		if err != nil {
			return fmt.Errorf("XLogData: %w", err)
		}
		s.pos = max(s.pos, x.WALStart)
		// pgoutput sends Begin, Commit and Message ('M') here; only messages matter.
		if len(x.WALData) == 0 || x.WALData[0] != byte(pglogrepl.MessageTypeMessage) {
			return nil
		}
		m, err := pglogrepl.Parse(x.WALData)
		if err != nil {
			return fmt.Errorf("logical message: %w", err)
		}
		if msg, ok := m.(*pglogrepl.LogicalDecodingMessage); ok && msg.Prefix == WakeupMessagePrefix {
			s.w.m.messages.Inc()
			if s.w.wake.forQueue(string(msg.Content)) {
				s.rewake[0].Reset(walRewakeSoon)
				s.rewake[1].Reset(walRewakeLate)
			}
		}
	}
	return nil
}

// confirm tells the server that everything up to pos is read and flushed: the slot may release
// the WAL before it. Nothing is kept, so there is nothing to replay after a reconnect. The
// update is written within walStatusMaxInterval or the stream counts as lost: pglogrepl ignores
// its context, and a write to a dead peer would otherwise block until TCP gives up.
func (s *walStream) confirm(ctx context.Context) error {
	netConn := s.conn.Conn()
	if err := netConn.SetWriteDeadline(time.Now().Add(walStatusMaxInterval)); err != nil {
		return fmt.Errorf("standby status update: %w", err)
	}
	err := pglogrepl.SendStandbyStatusUpdate(ctx, s.conn, pglogrepl.StandbyStatusUpdate{WALWritePosition: s.pos})
	if err == nil && ctx.Err() == nil {
		// Cleared unless ctx ended meanwhile: its deadline (now) must stay to stop the stream.
		err = netConn.SetWriteDeadline(time.Time{})
	}
	if err != nil {
		return fmt.Errorf("standby status update: %w", err)
	}
	s.confirmed, s.reply = s.pos, false
	return nil
}

func (s *walStream) close() {
	for _, t := range s.rewake {
		t.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.conn.Close(ctx)
}
