//go:build !linux

package runner

import (
	"context"
	"os/exec"
	"syscall"
	"time"
)

// Command is built on Linux's process controls (a process group killed as a whole, a death
// signal when the worker dies, waiting without reaping); elsewhere it is refused.
const commandSupported = false

func groupAttr() *syscall.SysProcAttr { return nil }

func superviseGroup(context.Context, *exec.Cmd, time.Duration) (bool, error) {
	panic("runner: Command needs Linux")
}
