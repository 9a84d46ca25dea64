package worker

import (
	"github.com/jobqdev/jobq/runner"
)

// buildHandler makes the runner handler of one [handlers.<name>] table: runner.Command for a
// command, runner.HTTPEndpoint for an HTTP endpoint. What they refuse is a problem of the file.
func buildHandler(spec HandlerSpec) (runner.Handler, error) {
	if c := spec.Command; c != nil {
		return runner.Command(runner.CommandConfig{
			Argv: c.Argv, Shell: c.Shell, Dir: c.Dir, InheritEnv: c.InheritEnv, Env: c.Env,
			Timeout: c.Timeout, OutputTail: c.OutputTail, KillGrace: c.KillGrace,
		})
	}
	h := spec.HTTP
	return runner.HTTPEndpoint(runner.HTTPConfig{
		URL: h.URL, Secret: h.Secret, Timeout: h.Timeout, MaxResponse: h.MaxResponse, Header: h.Headers,
	})
}
