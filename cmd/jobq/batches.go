package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/operator"
)

// ---- batches ----

type batchesCmd struct {
	List batchesListCmd `cmd:"" help:"List batches, newest first (jobq.batch_list)."`
	Show batchesShowCmd `cmd:"" help:"Show one batch: its state, counts, progress and callbacks (jobq.batch_status)."`
}

type batchesListCmd struct {
	connFlags
	jsonFlag
	State  string `help:"only this state (open, sealed, settled)" enum:",open,sealed,settled" default:""`
	Store  string `help:"only this store's batches (a uuid)"`
	Before int64  `help:"only ids below this one (the next page)"`
	Limit  int    `help:"at most this many rows" default:"50"`
}

func (c *batchesListCmd) Run(e *env) error {
	var bs []operator.Batch
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		bs, err = operator.New(conn).Batches(e.ctx, operator.BatchFilter{StoreID: c.Store, State: c.State, Before: c.Before, Limit: c.Limit})
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, bs)
	}
	now := time.Now()
	table := make([][]string, 0, len(bs))
	for _, b := range bs {
		table = append(table, []string{strconv.FormatInt(b.ID, 10), b.State, orDash(b.StoreID),
			fmt.Sprintf("%d/%d", b.Total-b.Pending, b.Total), strconv.FormatInt(b.Succeeded, 10), strconv.FormatInt(b.Dead, 10),
			strconv.FormatInt(b.Canceled, 10), relTime(&b.CreatedAt, now), orDash(b.Description)})
	}
	return writeTable(e.stdout, []string{"ID", "STATE", "STORE", "ENDED", "SUCCEEDED", "DEAD", "CANCELED", "CREATED", "DESCRIPTION"}, table)
}

type batchesShowCmd struct {
	connFlags
	jsonFlag
	ID int64 `arg:"" help:"batch id"`
}

func (c *batchesShowCmd) Run(e *env) error {
	var b operator.Batch
	err := c.withConn(e.ctx, func(conn *pgx.Conn) error {
		var err error
		b, err = operator.New(conn).Batch(e.ctx, c.ID)
		if errors.Is(err, jobq.ErrBatchNotFound) {
			return fmt.Errorf("batch %d not found", c.ID)
		}
		return err
	})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, b)
	}
	now := time.Now()
	at := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return t.UTC().Format(time.RFC3339) + " (" + relTime(t, now) + ")"
	}
	ids := make([]string, len(b.CallbackJobIDs))
	for i, id := range b.CallbackJobIDs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	bar := strings.Repeat("#", b.Percent()/5) + strings.Repeat(".", 20-b.Percent()/5)
	return writeFields(e.stdout, [][2]string{
		{"id", strconv.FormatInt(b.ID, 10)}, {"state", b.State}, {"store", orDash(b.StoreID)}, {"description", orDash(b.Description)},
		{"progress", fmt.Sprintf("[%s] %d%% (%d of %d ended)", bar, b.Percent(), b.Total-b.Pending, b.Total)},
		{"succeeded", strconv.FormatInt(b.Succeeded, 10)}, {"dead", strconv.FormatInt(b.Dead, 10)},
		{"canceled", strconv.FormatInt(b.Canceled, 10)}, {"pending", strconv.FormatInt(b.Pending, 10)},
		{"created", at(&b.CreatedAt)}, {"sealed", at(b.SealedAt)}, {"settled", at(b.SettledAt)},
		{"on success", orDash(b.OnSuccess)}, {"on complete", orDash(b.OnComplete)}, {"on discard", orDash(b.OnDiscard)},
		{"callback jobs", orDash(&[]string{strings.Join(ids, ", ")}[0])}, {"callback error", orDash(b.CallbackError)},
	})
}
