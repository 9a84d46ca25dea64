package runner

import "time"

// SetPositionSettle makes r's claims start settle back in time instead of positionSettle (0: one
// claim back, as before the settle): the pickup measurement compares the two. Call it before Run.
func SetPositionSettle(r *Runner, settle time.Duration) { r.positions.settle = settle }
