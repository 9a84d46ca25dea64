package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is a process the harness started (a worker under test), with its output in a log file.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	log     *os.File
	done    chan struct{}
	waitErr error
	stopped bool
}

// startProc starts a process in its own process group; its standard error (and standard output
// unless stdout is given) goes to bench/.cache/logs/<name>.log.
func startProc(env *environment, name string, stdout io.Writer, extraEnv []string, bin string, args ...string) (*proc, error) {
	logPath := filepath.Join(env.logDir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("log of %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), extraEnv...)
	cmd.Stderr = f
	cmd.Stdout = f
	if stdout != nil {
		cmd.Stdout = stdout
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, log: f, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports an error when the process has already ended: a worker must not die mid-run.
func (p *proc) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited early (%v); log %s:\n%s", p.name, p.waitErr, p.logPath, p.logTail())
	default:
		return nil
	}
}

// stop sends SIGTERM, waits up to grace, then kills the process group.
func (p *proc) stop(grace time.Duration) error {
	if p.stopped {
		return nil
	}
	p.stopped = true
	select {
	case <-p.done:
		return p.waitErr
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		var exitErr *exec.ExitError
		if errors.As(p.waitErr, &exitErr) {
			return fmt.Errorf("%s exited with %v after SIGTERM; log %s:\n%s", p.name, p.waitErr, p.logPath, p.logTail())
		}
		return p.waitErr
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("%s did not stop within %s after SIGTERM", p.name, grace)
	}
}

// kill ends the process group at once; for clean-up after an error.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.stopped = true
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

func (p *proc) logTail() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return ""
	}
	return lastChars(string(b), 3000)
}

// peakRSSMB reads the process's peak resident set size (VmHWM) in MB.
func (p *proc) peakRSSMB() (float64, error) {
	return procStatusMB(p.cmd.Process.Pid, "VmHWM:")
}

func procStatusMB(pid int, field string) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("status of pid %d: %w", pid, err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), field); ok {
			fields := strings.Fields(v)
			if len(fields) >= 1 {
				kb, err := strconv.ParseFloat(fields[0], 64)
				if err != nil {
					return 0, fmt.Errorf("%s of pid %d: %w", field, pid, err)
				}
				return kb / 1024, nil
			}
		}
	}
	return 0, fmt.Errorf("no %s in the status of pid %d", field, pid)
}

// runTool runs a tool to completion and returns its standard output; a failure carries the
// tail of its output.
func runTool(ctx context.Context, extraEnv []string, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), extraEnv...)
	var out, errOut strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), strings.Join(args, " "), err, lastChars(errOut.String()+out.String(), 2000))
	}
	return out.String(), nil
}
