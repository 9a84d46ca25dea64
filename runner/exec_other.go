//go:build !unix

package runner

import "os/exec"

// killGroupOnCancel keeps exec.CommandContext's default: the command itself is killed.
func killGroupOnCancel(*exec.Cmd) {}
