package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/jobqdev/jobq/internal/cmdgate"
)

const commandSupported = true

// How the process groups of commands die with their worker. Each command leads a process group
// of its own. One reaper per worker process, a copy of the worker's executable (/proc/self/exe)
// that this package's init turns into reap before main runs, is told on a pipe which groups run
// (and with which kill grace) and which ended. When the worker dies, even by kill -9, the kernel
// closes the pipe's write end: the reaper reads end of file and stops every group still running,
// SIGTERM, then SIGKILL after the grace. The reaper leads a process group of its own and ignores
// SIGTERM, SIGINT and SIGHUP, so what stops the worker does not stop it first.
//
// A command starts through a gate, another turn of the same executable (package cmdgate): in the
// command's own process, before the command's program is executed there, it tells the reaper its
// group on a copy of the pipe's write end. So the reaper knows every group before its program
// runs; a worker killed the instant after the fork leaves no command unknown to the reaper.
const (
	reaperArg0 = "jobq-command-reaper"
	reaperEnv  = "JOBQ_COMMAND_REAPER"
)

func init() {
	if len(os.Args) == 1 && os.Args[0] == reaperArg0 && os.Getenv(reaperEnv) == "1" {
		reap()
		os.Exit(0)
	}
}

// groupReaper is the worker's side of the reaper: the pipe to it, started at the first command.
type groupReaper struct {
	mu sync.Mutex
	w  *os.File
}

var reaper groupReaper

// tell sends the reaper one line, starting it (again) when needed.
func (g *groupReaper) tell(line string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for try := 0; try < 2; try++ {
		if g.w == nil && g.start() != nil {
			return
		}
		if _, err := g.w.WriteString(line); err == nil {
			return
		}
		g.w.Close() // the reaper is gone: start another
		g.w = nil
	}
}

// pipe returns a copy of the write end of the pipe to the reaper (close-on-exec), starting the
// reaper when needed, for a command's gate to tell it the command's group.
func (g *groupReaper) pipe() (*os.File, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w == nil {
		if err := g.start(); err != nil {
			return nil, err
		}
	}
	rc, err := g.w.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd uintptr
	var errno syscall.Errno
	if err := rc.Control(func(w uintptr) {
		fd, _, errno = syscall.Syscall(syscall.SYS_FCNTL, w, syscall.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if errno != 0 {
		return nil, fmt.Errorf("runner: a copy of the command reaper's pipe: %w", errno)
	}
	return os.NewFile(fd, "jobq-command-reaper"), nil
}

// startGated starts cmd, the reaper told of its group before its program runs: it returns once
// the program runs in the command's process, or with why it could not be executed (an
// *fs.PathError, as exec.Cmd.Start's). A shell command (shell: cmd is /bin/sh -c SCRIPT) is its
// own gate: SCRIPT starts with the gate's work in the shell's language (shellGate), and nothing
// else runs first. Any other program is executed by package cmdgate, a start of the worker's own
// executable. cmd's ExtraFiles get the gate's descriptors past the command's own, closed before
// the program runs.
func startGated(cmd *exec.Cmd, grace time.Duration, shell bool) error {
	toReaper, err := reaper.pipe()
	if err != nil {
		// No reaper (the worker's executable cannot be started again: no /proc): the command
		// runs all the same, as the gate's start would fail alike, without a guard at the
		// worker's death.
		return cmd.Start()
	}
	defer toReaper.Close()
	first := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles[:len(cmd.ExtraFiles):len(cmd.ExtraFiles)], toReaper)
	if shell {
		cmd.Args = slices.Clone(cmd.Args)
		cmd.Args[2] = shellGate(first, grace) + cmd.Args[2]
		return cmd.Start()
	}
	reportR, reportW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer reportR.Close()
	path := cmd.Path
	cmd.Args = append([]string{cmdgate.Arg0, strconv.Itoa(first), strconv.Itoa(first + 1),
		strconv.FormatInt(grace.Milliseconds(), 10), path}, cmd.Args...)
	cmd.Path = "/proc/self/exe"
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], cmdgate.Env+"=1")
	cmd.ExtraFiles = append(cmd.ExtraFiles, reportW)
	err = cmd.Start()
	reportW.Close()
	if err != nil {
		return err
	}
	report, _ := io.ReadAll(reportR) // end of file once the program runs
	if len(report) == 0 {
		return nil
	}
	reaper.tell(fmt.Sprintf("- %d\n", cmd.Process.Pid)) // before the wait: its pid is not reused till then
	_ = cmd.Wait()
	errno, _ := strconv.Atoi(string(report))
	return &fs.PathError{Op: "exec", Path: path, Err: syscall.Errno(errno)}
}

// shellGate is what a shell command's script starts with: the shell, leader of the command's
// group, writes "+ PGID GRACE_MS" to the reaper on descriptor fd and closes it. A reaper gone
// (the write fails) stops nothing: SIGPIPE is ignored for that write alone.
func shellGate(fd int, grace time.Duration) string {
	return fmt.Sprintf(`trap '' PIPE; printf '+ %%d %d\n' "$$" >&%d; exec %d>&-; trap - PIPE; `, grace.Milliseconds(), fd, fd)
}

func (g *groupReaper) start() error {
	r, w, err := os.Pipe() // close-on-exec: no command inherits the write end
	if err != nil {
		return err
	}
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{reaperArg0}, Env: []string{reaperEnv + "=1"}, Stdin: r,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return err
	}
	go func() { _ = cmd.Wait() }()
	g.w = w
	return nil
}

// reap is the reaper process: it reads "+ PGID GRACE_MS" (a group runs), "f PGID TERM_MS KILL_MS"
// (the group's fence: SIGTERM in TERM_MS, SIGKILL in KILL_MS, unless told again) and "- PGID" (it
// ended) from standard input until end of file, then stops the groups still running. The fences
// are the runner's self-fencing (fence.go) carried out by a process the runner's pause does not
// pause: a command whose runner is stopped (SIGSTOP) past the lease it last had confirmed is
// stopped all the same.
func reap() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	groups := map[int]time.Duration{}
	fences := map[int]*groupFence{}
	lines := make(chan []string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- strings.Fields(sc.Text())
		}
	}()
	tick := time.NewTimer(time.Hour)
	for open := true; open; {
		var f []string
		select {
		case f, open = <-lines:
		case <-tick.C:
		}
		now := time.Now()
		if len(f) >= 2 {
			if pgid, err := strconv.Atoi(f[1]); err == nil && pgid > 1 {
				switch {
				case f[0] == "+" && len(f) == 3:
					ms, _ := strconv.ParseInt(f[2], 10, 64)
					groups[pgid] = time.Duration(ms) * time.Millisecond
				case f[0] == "f" && len(f) == 4:
					term, _ := strconv.ParseInt(f[2], 10, 64)
					kill, _ := strconv.ParseInt(f[3], 10, 64)
					if _, ok := groups[pgid]; ok {
						fences[pgid] = &groupFence{term: now.Add(time.Duration(term) * time.Millisecond),
							kill: now.Add(time.Duration(kill) * time.Millisecond)}
					}
				case f[0] == "-":
					delete(groups, pgid)
					delete(fences, pgid)
				}
			}
		}
		next := now.Add(time.Hour)
		for pgid, g := range fences {
			if !g.termed && !now.Before(g.term) {
				_ = syscall.Kill(-pgid, syscall.SIGTERM)
				g.termed = true
			}
			if !now.Before(g.kill) {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
				delete(fences, pgid)
				continue
			}
			if !g.termed {
				next = minTime(next, g.term)
			}
			next = minTime(next, g.kill)
		}
		if !tick.Stop() {
			select {
			case <-tick.C:
			default:
			}
		}
		tick.Reset(max(time.Until(next), 0))
	}
	// The worker is gone.
	var grace time.Duration
	for pgid, g := range groups {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		grace = max(grace, g)
	}
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		alive := false
		for pgid := range groups {
			alive = alive || syscall.Kill(-pgid, 0) == nil
		}
		if !alive {
			return
		}
	}
	for pgid := range groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// groupFence is when the reaper stops a group whose runner has not confirmed its lease since.
type groupFence struct {
	term, kill time.Time
	termed     bool
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// runGroup runs cmd as the leader of a process group of its own and waits for it. When ctx ends
// first, the group gets SIGTERM, then SIGKILL after grace (shortened for a job the runner fenced,
// stopGrace). When the leader has exited, and before
// it is reaped (its pid, the group's id, cannot be reused until then), what is left of the group
// is killed: a child that outlives the command dies with it and holds no output open.
func runGroup(ctx context.Context, cmd *exec.Cmd, grace time.Duration, shell bool) commandEnd {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Output held open by a descendant that left the group must not keep the job waiting.
	cmd.WaitDelay = 2 * time.Second
	if err := startGated(cmd, grace, shell); err != nil {
		return commandEnd{startErr: err}
	}
	pid := cmd.Process.Pid
	// Again from here: should the reaper have died, this starts another.
	reaper.tell(fmt.Sprintf("+ %d %d\n", pid, grace.Milliseconds()))
	// The reaper stops the group at the job's fence should the runner be paused then; each
	// confirmed renewal moves the fence (fence.go).
	if rj, _ := ctx.Value(runningJobKey{}).(*runningJob); rj != nil {
		tellFence := func() {
			if term, kill, ok := rj.fenceTimes(); ok {
				reaper.tell(fmt.Sprintf("f %d %d %d\n", pid, max(time.Until(term), 0).Milliseconds(), max(time.Until(kill), 0).Milliseconds()))
			}
		}
		rj.onFence.Store(&tellFence)
		defer rj.onFence.Store(nil)
		tellFence()
	}
	exited := make(chan struct{})
	go func() {
		waitExited(pid)
		close(exited)
	}()
	var end commandEnd
	select {
	case <-exited:
	case <-ctx.Done():
		end.stopped = true
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		// A fenced job's group must be dead before its lease can end (fence.go).
		kill := time.NewTimer(stopGrace(ctx, grace))
		select {
		case <-exited:
		case <-kill.C:
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-exited
		}
		kill.Stop()
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	reaper.tell(fmt.Sprintf("- %d\n", pid))
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			end.signal = ws.Signal()
		} else {
			end.code = ee.ExitCode()
		}
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		end.err = err
	}
	return end
}

// waitExited returns when the process pid (a child) has exited, without reaping it: waitid with
// WNOWAIT leaves it a zombie for cmd.Wait.
func waitExited(pid int) {
	const pPID, wEXITED, wNOWAIT = 1, 4, 0x1000000
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wEXITED|wNOWAIT, 0, 0)
		if !errors.Is(e, syscall.EINTR) {
			return
		}
	}
}
