package runner

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
	"unsafe"
)

const commandSupported = true

// groupAttr starts a command as the leader of a process group of its own, which gets SIGKILL
// when the worker process dies (even by kill -9): PR_SET_PDEATHSIG. Linux sends it when the
// thread that started the command ends; the Go runtime ends a thread only when a goroutine
// locked to it (runtime.LockOSThread) returns without unlocking, which the runner never does.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// superviseGroup waits for the command started as cmd, the leader of its process group. When ctx
// ends first, the group gets SIGTERM, then SIGKILL after grace. When the leader has exited, and
// before it is reaped (its pid, the group's id, cannot be reused until then), what is left of
// the group is killed: a child that outlives the command dies with it and holds no output open.
// It reports whether ctx stopped the command, and cmd.Wait's error.
func superviseGroup(ctx context.Context, cmd *exec.Cmd, grace time.Duration) (bool, error) {
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		waitExited(pid)
		close(exited)
	}()
	stopped := false
	select {
	case <-exited:
	case <-ctx.Done():
		stopped = true
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
	return stopped, cmd.Wait()
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
