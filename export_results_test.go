package jobq

import "time"

// WithAwaitBackstop returns a copy of c whose AwaitResult waits d for a notification before it
// reads the job again (5 s otherwise).
func WithAwaitBackstop(c *Client, d time.Duration) *Client {
	cc := *c
	cc.awaitBackstop = d
	return &cc
}
