package runner

import (
	"context"
	"fmt"
	"log/slog"
)

// A detached runner rejoins (seed 002 §7.3: a worker cut off by a detach stops or finishes its
// jobs, clears its state and joins again under a new id). Once it holds no lease any more (every
// handler returned and its result was written, the jobs claimed ahead handed back), its next
// worker heartbeat (asked for at once when the last lease goes) takes a new id, Config.WorkerID
// with "-r<n>" added for the n-th rejoin, registers it active and claims again, without a restart
// of the process. The old id's row stays detached for the operator to see. jobq.resume_worker of
// the old id does not bring it back: only the new id claims.

// rejoin takes a new worker id when the runner holds no lease, and returns the old and the new
// id; newID is "" while a lease is held or the runner is shutting down.
func (r *Runner) rejoin() (oldID, newID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.held) > 0 || r.closed {
		return "", ""
	}
	oldID = r.WorkerID()
	r.rejoins++
	newID = fmt.Sprintf("%s-r%d", r.cfg.WorkerID, r.rejoins)
	r.id.Store(&newID)
	return oldID, newID
}

// workerIDHandler adds the runner's worker id of the moment to every log line (workerId), so
// that lines after a rejoin name the new id.
type workerIDHandler struct {
	inner slog.Handler
	id    func() string
}

func (h *workerIDHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *workerIDHandler) Handle(ctx context.Context, rec slog.Record) error {
	rec = rec.Clone()
	rec.AddAttrs(slog.String("workerId", h.id()))
	return h.inner.Handle(ctx, rec)
}

func (h *workerIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &workerIDHandler{inner: h.inner.WithAttrs(as), id: h.id}
}

func (h *workerIDHandler) WithGroup(name string) slog.Handler {
	return &workerIDHandler{inner: h.inner.WithGroup(name), id: h.id}
}
