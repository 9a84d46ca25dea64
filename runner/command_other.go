//go:build !linux

package runner

import (
	"context"
	"os/exec"
	"time"
)

// Command is built on Linux's process controls (a death signal when the worker dies, waiting
// without reaping); elsewhere it is refused.
const commandSupported = false

func runGroup(context.Context, *exec.Cmd, time.Duration, bool) commandEnd {
	panic("runner: Command needs Linux")
}
