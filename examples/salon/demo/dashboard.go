package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq/dashboard"
)

// demoOperator is the login the demo creates so that a newcomer can sign in to the dashboard
// and act (retry the dead mail, pause a queue); the throwaway cluster checks its password
// (scram-sha-256), everything else there is trusted.
const demoOperator = "salon_operator"

// dashboardHBA is the pg_hba.conf line of the throwaway cluster for demoOperator.
var dashboardHBA = "host all " + demoOperator + " 127.0.0.1/32 scram-sha-256"

// demoDashboard is the dashboard the demo serves on its database.
type demoDashboard struct {
	URL      string
	Password string // demoOperator's, "" when signing in is not offered
	srv      *http.Server
	dash     *dashboard.Dashboard
	pool     *pgxpool.Pool
}

// startDashboard serves the dashboard on 127.0.0.1:8080 (or a free port when that is taken),
// reading as jobq_dashboard; withOperator creates demoOperator with a random password.
func startDashboard(ctx context.Context, admin *pgx.Conn, readerURL string, withOperator bool) (*demoDashboard, error) {
	d := &demoDashboard{}
	if withOperator {
		b := make([]byte, 9)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		d.Password = hex.EncodeToString(b)
		// The statements are built by the server with format(%I, %L), as every dynamic
		// statement of jobq is.
		var create, password string
		err := admin.QueryRow(ctx, `SELECT format('DO $do$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %L) THEN CREATE ROLE %I LOGIN IN ROLE jobq_operator; END IF; END $do$', $1::text, $1::text),
				format('ALTER ROLE %I PASSWORD %L', $1::text, $2::text)`, demoOperator, d.Password).Scan(&create, &password)
		if err == nil {
			_, err = admin.Exec(ctx, create)
		}
		if err == nil {
			_, err = admin.Exec(ctx, password)
		}
		if err != nil {
			return nil, fmt.Errorf("dashboard operator: %w", err)
		}
	}
	cfg, err := pgxpool.ParseConfig(readerURL)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 4
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = "5s"
	if d.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, err
	}
	opts := dashboard.Options{Reader: d.pool, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "salon demo"}
	if withOperator {
		opts.SignIn = cfg.ConnConfig.Copy()
	}
	if d.dash, err = dashboard.New(ctx, opts); err != nil {
		d.pool.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:8080")
	if err != nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		d.dash.Close()
		d.pool.Close()
		return nil, err
	}
	d.URL = "http://" + ln.Addr().String() + "/"
	d.srv = &http.Server{Handler: d.dash, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := d.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("salon demo: dashboard", "error", err)
		}
	}()
	return d, nil
}

// stop ends the dashboard's sessions and server.
func (d *demoDashboard) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = d.srv.Shutdown(ctx)
	d.dash.Close()
	d.pool.Close()
}
