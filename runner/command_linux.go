package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const commandSupported = true

// How a command runs on Linux. The worker starts a supervisor, a copy of its own executable
// (/proc/self/exe) that this package's init turns into supervise before main runs, as the leader
// of a new process group; the supervisor starts the command in that group, with the worker's
// standard input and output pipes, and reports how it ended on a pipe (fd 3). The supervisor
// exists for the worker's death: the kernel sends it SIGUSR1 when the worker dies, even by
// kill -9 (PR_SET_PDEATHSIG), and it then signals the whole group, SIGTERM and SIGKILL after the
// kill grace. While the worker lives, the worker signals the group itself.
const (
	supervisorArg0 = "jobq-command-supervisor"
	supervisorEnv  = "JOBQ_COMMAND_SUPERVISOR"
	workerDied     = syscall.SIGUSR1
)

func init() {
	if len(os.Args) >= 4 && os.Args[0] == supervisorArg0 && os.Getenv(supervisorEnv) == "1" {
		supervise(os.Args[1], os.Args[2], os.Args[3:])
		os.Exit(0)
	}
}

// runGroup runs cmd (Path, Args, Env, Dir, Stdin, Stdout, Stderr) under a supervisor in a process
// group of its own and waits for it. When ctx ends first, the group gets SIGTERM, then SIGKILL
// after grace. When the supervisor has exited, and before it is reaped (its pid, the group's id,
// cannot be reused until then), what is left of the group is killed: a child that outlives the
// command dies with it and holds no output open.
func runGroup(ctx context.Context, cmd *exec.Cmd, grace time.Duration) commandEnd {
	status, statusW, err := os.Pipe()
	if err != nil {
		return commandEnd{startErr: err}
	}
	defer status.Close()
	sup := &exec.Cmd{
		Path:   "/proc/self/exe",
		Args:   append([]string{supervisorArg0, grace.String(), cmd.Path}, cmd.Args...),
		Env:    append(cmd.Env[:len(cmd.Env):len(cmd.Env)], supervisorEnv+"=1"),
		Dir:    cmd.Dir,
		Stdin:  cmd.Stdin,
		Stdout: cmd.Stdout,
		Stderr: cmd.Stderr,
		// Pdeathsig is sent when the thread that started the supervisor ends; the Go runtime
		// ends a thread only when a goroutine locked to it (runtime.LockOSThread) returns
		// without unlocking, which the runner never does.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: workerDied},
		ExtraFiles:  []*os.File{statusW},
		// Output held open by a descendant that left the group must not keep the job waiting.
		WaitDelay: 2 * time.Second,
	}
	err = sup.Start()
	statusW.Close()
	if err != nil {
		return commandEnd{startErr: err}
	}
	pid := sup.Process.Pid
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
		kill := time.NewTimer(grace)
		select {
		case <-exited:
		case <-kill.C:
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-exited
		}
		kill.Stop()
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	waitErr := sup.Wait()
	report, _ := io.ReadAll(io.LimitReader(status, 4096))
	kind, detail, _ := strings.Cut(string(report), " ")
	n, _ := strconv.Atoi(detail)
	switch kind {
	case "exit":
		end.code = n
	case "signal":
		end.signal = syscall.Signal(n)
	case "start":
		end.startErr = startFailure(detail)
	default:
		// The supervisor died before it could tell (killed with the group): its own end says it.
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				end.signal = ws.Signal()
				return end
			}
		}
		end.err = fmt.Errorf("its supervisor ended without a report: %v", waitErr)
		return end
	}
	if waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) {
		end.err = waitErr
	}
	return end
}

// startFailure rebuilds the error of a command that could not start from its report.
func startFailure(detail string) error {
	errno, msg, _ := strings.Cut(detail, " ")
	if n, err := strconv.Atoi(errno); err == nil && n > 0 {
		return fmt.Errorf("%s: %w", msg, syscall.Errno(n))
	}
	return errors.New(detail)
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

// supervise is the supervisor process: it runs the command at path with argv in its own process
// group (the supervisor's) and writes how it ended to fd 3: "exit N", "signal N" or "start
// ERRNO message". When the worker dies (workerDied) it stops the group: SIGTERM, then SIGKILL
// after grace, itself included. It ignores the SIGTERM the worker sends the group: the command
// gets it too, and the supervisor reports how the command took it.
func supervise(grace, path string, argv []string) {
	report := os.NewFile(3, "status")
	syscall.CloseOnExec(3)
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, workerDied)
	g, err := time.ParseDuration(grace)
	if err != nil {
		g = DefaultKillGrace
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, supervisorEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		var errno syscall.Errno
		errors.As(err, &errno)
		fmt.Fprintf(report, "start %d %s", int(errno), err)
		return
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	for {
		select {
		case <-done:
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if ws.Signaled() {
				fmt.Fprintf(report, "signal %d", int(ws.Signal()))
			} else {
				fmt.Fprintf(report, "exit %d", ws.ExitStatus())
			}
			return
		case s := <-signals:
			if s != workerDied {
				continue
			}
			_ = syscall.Kill(0, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(g):
			}
			_ = syscall.Kill(0, syscall.SIGKILL)
		}
	}
}
