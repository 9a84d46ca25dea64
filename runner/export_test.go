package runner

// WithoutDoorbell makes r never hold a doorbell, as runners of the releases before it: tests of
// the rolling upgrade, and the check that the lost-wake-up test fails without the runner's side.
func WithoutDoorbell(r *Runner) { r.noDoorbell = true }
