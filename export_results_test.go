package jobq

import "time"

// SetAwaitBackstop sets how long AwaitResult waits for a notification before it reads the job
// again, and returns a function that restores it.
func SetAwaitBackstop(d time.Duration) func() {
	old := awaitBackstop.Swap(int64(d))
	return func() { awaitBackstop.Store(old) }
}
