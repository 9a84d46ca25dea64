// Package cmdgate is the first moment of a command handler's process (package runner): before
// the command's program is executed in it, the process tells the worker's command reaper its
// process group, so that a worker killed the instant after the fork leaves no command the reaper
// does not know.
//
// The gate is the worker's own executable started again (/proc/self/exe) with Arg0 as its argv[0]
// and Env=1 in its environment; this package's init does the gate's work and executes the
// program in its place. It is a package of its own, importing nothing beyond os, strconv and
// syscall, so that its init runs before the heavier packages of the worker are initialized (27
// small package inits, 0.53 ms, run first: GODEBUG=inittrace=1). A gate still costs 3.6 to 6 ms
// of CPU (perf stat), mostly the kernel's exec and exit of a large binary (docs/handlers.md).
package cmdgate

// Arg0 and Env mark a process started as a gate (runner.startGated passes the rest).
const (
	Arg0 = "jobq-command-gate"
	Env  = "JOBQ_COMMAND_GATE"
)
