package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/jobqdev/jobq"
)

// MaxProgressBytes is the largest progress a handler may report: a JSON object of at most this
// many bytes as text (jobq.set_progress refuses more with jobq.ErrValueTooLong).
const MaxProgressBytes = 65536

// ProgressFD is the file descriptor on which a command handler's program may report its progress,
// one JSON object per line; $JOBQ_PROGRESS_FD names it.
const ProgressFD = 3

// ProgressHeader is the header in which an HTTP endpoint reports its progress, a JSON object:
// in informational (1xx) answers sent while it works, and in its final answer.
const ProgressHeader = "Jobq-Progress"

// ErrNoAttempt is returned by SetProgress called with a context that is not a handler's run by a
// Runner (nothing is written).
var ErrNoAttempt = errors.New("runner: no running attempt in this context: pass the handler's context")

// progressWriter writes an attempt's progress: *jobq.Client is one.
type progressWriter interface {
	SetProgress(ctx context.Context, lease jobq.Lease, progress json.RawMessage) error
}

// attemptNotes is what a running attempt leaves behind besides its result, for the finisher to
// write with it: the tail of a command's output or an endpoint's answer, and a command's exit
// status. db writes its progress (nil: the job was not claimed by a Runner).
type attemptNotes struct {
	db progressWriter

	mu       sync.Mutex
	output   string
	exitCode *int
}

// note records the attempt's output tail and exit status (nil: none), replacing any before.
func (n *attemptNotes) note(output string, exitCode *int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.output, n.exitCode = output, exitCode
}

// taken returns what was noted.
func (n *attemptNotes) taken() (string, *int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.output, n.exitCode
}

// noteAttempt records, for the attempt whose handler's context ctx is, the tail of its output
// and its exit status (nil: none). It does nothing outside a Runner.
func noteAttempt(ctx context.Context, output string, exitCode *int) {
	if rj, _ := ctx.Value(runningJobKey{}).(*runningJob); rj != nil {
		rj.notes.note(output, exitCode)
	}
}

// SetProgress reports the progress of the attempt whose handler's context ctx is: progress is
// marshalled to JSON and must be an object of at most MaxProgressBytes bytes. The latest report
// is kept in jobq.jobs.progress while the attempt runs, then with the attempt (jobq.job_attempts,
// jobq.job_history), and shown by `jobq jobs show` and the dashboard's job page. Each call is one
// statement, fenced by the job's lease token: after the lease is lost it fails with
// jobq.ErrLeaseLost and writes nothing. Report at a human pace (a few times a second at most).
// Outside a handler run by a Runner it returns ErrNoAttempt.
func SetProgress(ctx context.Context, progress any) error {
	rj, _ := ctx.Value(runningJobKey{}).(*runningJob)
	if rj == nil || rj.notes.db == nil {
		return ErrNoAttempt
	}
	body, err := json.Marshal(progress)
	if err != nil {
		return err
	}
	return rj.notes.db.SetProgress(ctx, rj.job.Lease(), body)
}

// progressObject reports whether b is one JSON object of at most MaxProgressBytes bytes.
func progressObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && len(b) <= MaxProgressBytes && b[0] == '{' && json.Valid(b)
}

// progressRelay writes the progress a command or an endpoint reports, the latest first: reports
// that arrive while a write is in flight replace each other, so a program that reports faster
// than the database answers is never slowed down. Reports that are not a JSON object of at most
// MaxProgressBytes bytes are dropped.
type progressRelay struct {
	ctx  context.Context
	mu   sync.Mutex
	next []byte // the report not yet written
	wake chan struct{}
	done chan struct{}
	idle chan struct{} // closed when the writer has returned
}

// startProgressRelay starts the relay of the attempt whose handler's context ctx is; nil (whose
// methods do nothing) outside a Runner.
func startProgressRelay(ctx context.Context) *progressRelay {
	rj, _ := ctx.Value(runningJobKey{}).(*runningJob)
	if rj == nil || rj.notes.db == nil {
		return nil
	}
	p := &progressRelay{ctx: ctx, wake: make(chan struct{}, 1), done: make(chan struct{}), idle: make(chan struct{})}
	go p.write(rj)
	return p
}

// offer queues report, replacing any not yet written.
func (p *progressRelay) offer(report []byte) {
	if p == nil || !progressObject(report) {
		return
	}
	p.mu.Lock()
	p.next = append(p.next[:0], bytes.TrimSpace(report)...)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *progressRelay) write(rj *runningJob) {
	defer close(p.idle)
	for {
		closing := false
		select {
		case <-p.wake:
		case <-p.done:
			closing = true
		}
		p.mu.Lock()
		report := p.next
		p.next = nil
		p.mu.Unlock()
		if report != nil {
			// A refused write (a lost lease) changes nothing; the attempt's result says the rest.
			_ = rj.notes.db.SetProgress(p.ctx, rj.job.Lease(), report)
		}
		if closing {
			return
		}
	}
}

// close writes the last report, if one is pending, and stops the relay.
func (p *progressRelay) close() {
	if p == nil {
		return
	}
	close(p.done)
	<-p.idle
}

// progressPipe is the pipe a command reports its progress on: the command writes JSON lines to
// its end (fd ProgressFD), and the runner relays each complete line.
type progressPipe struct {
	r, w  *os.File
	relay *progressRelay
	read  chan struct{} // closed when the reader has returned
}

// openProgressPipe opens the pipe of a command run with the handler's context ctx. The caller
// passes w to the command (as its fd ProgressFD) and calls close once the command ended.
func openProgressPipe(ctx context.Context) (*progressPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &progressPipe{r: r, w: w, relay: startProgressRelay(ctx), read: make(chan struct{})}
	go p.readLines()
	return p, nil
}

// readLines relays each line read, and drains the pipe whatever it holds (a line too long is
// skipped), so that the command never blocks on it.
func (p *progressPipe) readLines() {
	defer close(p.read)
	br := bufio.NewReaderSize(p.r, 64<<10)
	var line []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over && len(line)+len(chunk) <= MaxProgressBytes+1 {
			line = append(line, chunk...)
		} else {
			over, line = true, line[:0]
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !over && len(line) > 0 {
			p.relay.offer(line)
		}
		line, over = line[:0], false
		if err != nil {
			return
		}
	}
}

// close ends the pipe after the command ended: what the command wrote is read for up to a
// second more (a child that kept the pipe open does not hold the job), and the last report is
// written before close returns, so it is recorded before the attempt's result.
func (p *progressPipe) close() {
	p.w.Close()
	_ = p.r.SetReadDeadline(time.Now().Add(time.Second))
	<-p.read
	p.r.Close()
	p.relay.close()
}
