package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// TenantSetting is the setting WithTenant sets for the transaction: row-level security policies
// of store-scoped tables compare store_id with current_setting('app.current_store_id').
const TenantSetting = "app.current_store_id"

// TxBeginner starts transactions; *pgxpool.Pool, *pgx.Conn and pgx.Tx satisfy it (on a pgx.Tx,
// WithTenant runs in a savepoint and the setting lasts until the outer transaction ends).
type TxBeginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// WithTenant runs fn in a transaction on db that first sets app.current_store_id to storeID
// with set_config(..., true), so the setting holds for this transaction only and never leaks to
// the next user of the connection. The transaction commits when fn returns nil and rolls back
// otherwise. An empty storeID is refused: a store-scoped task without a store is a bug.
func WithTenant(ctx context.Context, db TxBeginner, storeID string, fn func(ctx context.Context, tx pgx.Tx) error) error {
	if storeID == "" {
		return errors.New("runner: WithTenant needs a store id")
	}
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_catalog.set_config($1, $2, true)", TenantSetting, storeID); err != nil {
			return fmt.Errorf("runner: set %s: %w", TenantSetting, err)
		}
		return fn(ctx, tx)
	})
}

// WithTenant runs fn in a transaction on the runner's pool with app.current_store_id set to
// storeID for that transaction; see the package-level WithTenant.
func (r *Runner) WithTenant(ctx context.Context, storeID string, fn func(ctx context.Context, tx pgx.Tx) error) error {
	return WithTenant(ctx, r.pool, storeID, fn)
}
