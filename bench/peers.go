package main

import (
	"context"
	"fmt"
	"path/filepath"
)

// preparePeers installs the peers once per harness run, each in its own database of the
// cluster: River (rivermigrate) in "river", graphile-worker's schema in "graphile", and the
// raw floor's tables in "raw". A peer that cannot be installed is remembered in env.peerDown
// with the reason, and every measure of it is reported as not measured.
func (env *environment) preparePeers(ctx context.Context) error {
	if env.peersReady {
		return nil
	}
	env.peerDown = map[string]string{}
	if env.has("river") {
		env.progress("installing River (rivermigrate) in database river")
		if err := env.cl.createDatabase(ctx, "river"); err != nil {
			return err
		}
		if err := installRiver(ctx, env.cl.url("postgres", "river")); err != nil {
			env.peerDown["river"] = "not measured: " + oneLine(err.Error())
		}
	}
	if env.has("graphile") {
		env.progress("installing graphile-worker's schema in database graphile")
		if why := env.nodePeerUnavailable("graphile-worker"); why != "" {
			env.peerDown["graphile"] = "not measured: " + why
		} else {
			if err := env.cl.createDatabase(ctx, "graphile"); err != nil {
				return err
			}
			if _, err := runTool(ctx, nil, env.nodeBin, filepath.Join(env.graphileDir, "worker.mjs"), "migrate", env.cl.url("postgres", "graphile")); err != nil {
				env.peerDown["graphile"] = "not measured: " + oneLine(err.Error())
			}
		}
	}
	if env.has("pgboss") {
		env.progress("installing pg-boss's schema in database pgboss")
		if why := env.nodePeerUnavailable("pg-boss"); why != "" {
			env.peerDown["pgboss"] = "not measured: " + why
		} else if err := installPgboss(ctx, env); err != nil {
			env.peerDown["pgboss"] = "not measured: " + oneLine(err.Error())
		}
	}
	if env.has("pgq") {
		env.progress("installing PgQ in database pgq")
		if err := installPgq(ctx, env); err != nil {
			env.peerDown["pgq"] = "not measured: " + oneLine(err.Error())
		}
	}
	if env.has("pgbench") {
		if err := env.cl.createDatabase(ctx, "raw"); err != nil {
			return err
		}
		// floor_jobs: the throughput floor (pgbench). floor_latency: the pickup-latency floor
		// (a Go loop), with the partial index a claim by state needs.
		if err := execSQL(ctx, env.cl.url("postgres", "raw"),
			`CREATE TABLE floor_jobs (
				id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
				task    text NOT NULL,
				payload jsonb NOT NULL,
				run_at  timestamptz NOT NULL DEFAULT now())`,
			`CREATE TABLE floor_latency (
				id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
				task       text NOT NULL,
				payload    jsonb NOT NULL,
				state      text NOT NULL DEFAULT 'queued',
				claimed_at timestamptz)`,
			`CREATE INDEX floor_latency_queued ON floor_latency (id) WHERE state = 'queued'`,
		); err != nil {
			return fmt.Errorf("raw floor tables: %w", err)
		}
	}
	env.peersReady = true
	return nil
}
