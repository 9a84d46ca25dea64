package main

import (
	"io"
	"net"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/worker"
)

// TestWorkerHealthServerDefaultsToLoopbackBesideTheDashboard: a worker started as the README says
// serves /healthz, /readyz and /metrics on this machine only (the metrics name every queue and
// task), on another port than the dashboard's default, so that the README's worker and dashboard
// start side by side (issue 30: both defaulted to port 8080, the worker on every interface).
func TestWorkerHealthServerDefaultsToLoopbackBesideTheDashboard(t *testing.T) {
	f, err := worker.ParseFlags(workerProgram(), []string{"--database-url", "postgres://worker_runtime@localhost/app"}, io.Discard)
	require.NoError(t, err)
	require.Equal(t, worker.DefaultHealthAddr, f.HealthAddr)
	host, port, err := net.SplitHostPort(f.HealthAddr)
	require.NoError(t, err)
	require.True(t, net.ParseIP(host).IsLoopback(), "the worker's health server answers this machine only: %s", f.HealthAddr)

	field, ok := reflect.TypeOf(dashboardCmd{}).FieldByName("Listen")
	require.True(t, ok)
	dashHost, dashPort, err := net.SplitHostPort(field.Tag.Get("default"))
	require.NoError(t, err)
	require.True(t, net.ParseIP(dashHost).IsLoopback())
	require.NotEqual(t, dashPort, port, "the worker's default port is not the dashboard's")
}
