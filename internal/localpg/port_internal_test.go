package localpg

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"
)

// A port chosen free and taken before the server binds it (another process's connection drew it)
// does not fail the start: the cluster starts on another port it chooses. This runs PostgreSQL.
func TestStartChoosesAnotherPortWhenItsPortIsTaken(t *testing.T) {
	binDir, err := FindBinDir()
	if err != nil {
		t.Fatal(err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := start(ctx, Options{}, binDir, port, true)
	if err != nil {
		t.Fatalf("start on a taken port it chose: %v", err)
	}
	defer c.Remove()
	if c.Port == port {
		t.Fatalf("the cluster reports the taken port %d", port)
	}
	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", itoa(c.Port)))
	if err != nil {
		t.Fatalf("the server does not listen on its new port %d: %v", c.Port, err)
	}
	conn.Close()

	// A port the caller gave is not changed behind its back: the start fails.
	if c2, err := start(ctx, Options{Port: port}, binDir, port, false); err == nil {
		c2.Remove()
		t.Fatalf("a start on a given, taken port %d succeeded", port)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
