// Package cmdgate is the first moment of a command handler's process (package runner): before
// the command's program is executed in it, the process tells the worker's command reaper its
// process group, so that a worker killed the instant after the fork leaves no command the reaper
// does not know.
//
// The gate is the worker's own executable started again (/proc/self/exe) with Arg0 as its argv[0]
// and Env=1 in its environment; this package's init does the gate's work and executes the
// program in its place. It is a package of its own, importing nothing beyond os, strconv and
// syscall, so that its init runs before the heavier packages of the worker are initialized: a gate
// costs about a millisecond, not the tens of milliseconds a whole worker's initialization does.
package cmdgate

// Arg0 and Env mark a process started as a gate; Args builds the rest of its arguments.
const (
	Arg0 = "jobq-command-gate"
	Env  = "JOBQ_COMMAND_GATE"
)
