package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The plan check of the floors: a floor whose statement reads a whole table measures a plan
// jobq never runs (jobq's functions pin index plans), so before a floor is timed, each of its
// statements is prepared and explained as the floor runs it (its planner settings, a generic
// plan), and a sequential scan of any table fails the measurement.

// floorPlan is one statement of a floor: its name, the planner settings it runs under, its
// text with $n parameters, and a literal for each parameter.
type floorPlan struct {
	name     string
	settings []string
	sql      string
	args     []string
}

// checkFloorPlans explains each statement with a generic plan under its settings, in a
// transaction that is rolled back, and fails when a plan holds a Seq Scan.
func checkFloorPlans(ctx context.Context, conn *pgx.Conn, plans []floorPlan) error {
	for _, p := range plans {
		plan, err := explainGeneric(ctx, conn, p)
		if err != nil {
			return fmt.Errorf("plan check of %s: %w", p.name, err)
		}
		if scans := seqScans(plan); len(scans) > 0 {
			return fmt.Errorf("plan check: %s reads a whole table (Seq Scan on %s): the floor would time a plan jobq never runs; its plan:\n%s",
				p.name, strings.Join(scans, ", "), lastChars(string(plan), 3000))
		}
	}
	return nil
}

func explainGeneric(ctx context.Context, conn *pgx.Conn, p floorPlan) ([]byte, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	stmts := []string{"SET LOCAL plan_cache_mode = force_generic_plan"}
	for _, s := range p.settings {
		stmts = append(stmts, "SET LOCAL "+s)
	}
	stmts = append(stmts, "PREPARE bench_floor_plan AS "+p.sql)
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("%s: %w", strings.SplitN(s, "\n", 2)[0], err)
		}
	}
	exec := "EXECUTE bench_floor_plan"
	if len(p.args) > 0 {
		exec += "(" + strings.Join(p.args, ", ") + ")"
	}
	var out []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+exec).Scan(&out); err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	if _, err := tx.Exec(ctx, "DEALLOCATE bench_floor_plan"); err != nil {
		return nil, err
	}
	return out, nil
}

// seqScans lists the relations a JSON plan (EXPLAIN FORMAT JSON) reads by sequential scan.
func seqScans(planJSON []byte) []string {
	var doc []struct {
		Plan json.RawMessage `json:"Plan"`
	}
	if err := json.Unmarshal(planJSON, &doc); err != nil || len(doc) == 0 {
		return []string{"(unreadable plan: " + oneLine(string(planJSON)) + ")"}
	}
	var out []string
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var n struct {
			NodeType string            `json:"Node Type"`
			Relation string            `json:"Relation Name"`
			Schema   string            `json:"Schema"`
			Plans    []json.RawMessage `json:"Plans"`
		}
		if json.Unmarshal(raw, &n) != nil {
			return
		}
		if n.NodeType == "Seq Scan" {
			rel := n.Relation
			if n.Schema != "" {
				rel = n.Schema + "." + rel
			}
			out = append(out, rel)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(doc[0].Plan)
	return out
}
