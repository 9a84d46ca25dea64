package cmdgate

import (
	"os"
	"strconv"
	"syscall"
)

func init() {
	if len(os.Args) >= 6 && os.Args[0] == Arg0 && os.Getenv(Env) == "1" {
		gate(os.Args[1:])
	}
}

// gate has the arguments REAPER_FD REPORT_FD GRACE_MS PATH ARGV...: it writes "+ PGID GRACE_MS"
// on REAPER_FD (the reaper's pipe; this process leads its group, so its pid is the group's id),
// closes REAPER_FD and executes PATH with ARGV in its place, with its environment less Env.
// Should the execution fail, its errno goes on REPORT_FD (closed on a successful execution) and
// the gate exits with 127.
func gate(args []string) {
	reaperFd, err1 := strconv.Atoi(args[0])
	reportFd, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil {
		os.Exit(127)
	}
	_, _ = syscall.Write(reaperFd, []byte("+ "+strconv.Itoa(os.Getpid())+" "+args[2]+"\n"))
	_ = syscall.Close(reaperFd)
	syscall.CloseOnExec(reportFd)
	env := os.Environ()
	for i, kv := range env {
		if len(kv) > len(Env) && kv[:len(Env)+1] == Env+"=" {
			env = append(env[:i], env[i+1:]...)
			break
		}
	}
	err := syscall.Exec(args[3], args[4:], env)
	errno, ok := err.(syscall.Errno)
	if !ok {
		errno = syscall.ENOEXEC
	}
	_, _ = syscall.Write(reportFd, []byte(strconv.Itoa(int(errno))))
	os.Exit(127)
}
