-- salon schema step 1: the business tables the Phase 1 tasks touch (seed 000 §12), applied as
-- jobq_migrator after jobq's own migrations. Every table carries store_id and is confined to
-- the store of the transaction (app.current_store_id, set by WithTenant or the API) by a forced
-- row-level security policy: a session without a store sees and changes nothing.

-- +goose Up

-- The store of the current transaction, or NULL when app.current_store_id is unset, empty or no
-- uuid (NULL matches no row, so a bad setting fails closed instead of raising).
-- +goose StatementBegin
CREATE FUNCTION public.app_current_store_id()
RETURNS uuid
LANGUAGE sql
STABLE
PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN s ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN s::uuid END
    FROM (SELECT pg_catalog.current_setting('app.current_store_id', true) AS s) AS setting
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION public.app_current_store_id() IS
    'The store of this transaction (app.current_store_id) as a uuid, or NULL when unset or malformed. '
    'Used by every salon RLS policy; reads only the setting, locks nothing, raises nothing.';

-- jobq's migrations made a minimal public.store when the database had none; the salon's store
-- adds what the tasks need. On a database that had its own store already, this only adds.
-- +goose StatementBegin
DO $$
BEGIN
    IF pg_catalog.to_regclass('public.store') IS NULL THEN
        CREATE TABLE public.store (
            id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
            name       text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL DEFAULT now()
        );
        ALTER TABLE public.store ENABLE ROW LEVEL SECURITY;
        ALTER TABLE public.store FORCE ROW LEVEL SECURITY;
        CREATE POLICY store_own ON public.store USING (id = public.app_current_store_id());
        GRANT SELECT (id) ON public.store TO worker_fanout_owner;
    END IF;
END
$$;
-- +goose StatementEnd
ALTER TABLE public.store ADD COLUMN IF NOT EXISTS timezone text NOT NULL DEFAULT 'Asia/Tokyo';
COMMENT ON COLUMN public.store.timezone IS 'The IANA time zone of the store: its business day (daily sales) is a day of this zone.';
-- A tenant session may read its own store's row (the policy of public.store confines it); it
-- never lists the others: that is public.list_store_ids_for_fan_out()'s job alone.
GRANT SELECT (id, name, timezone) ON public.store TO worker_runtime, salon_api;

CREATE TABLE public.tentative_reservation (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    store_id    uuid NOT NULL DEFAULT public.app_current_store_id() REFERENCES public.store (id) ON DELETE CASCADE,
    starts_at   timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    status      text NOT NULL DEFAULT 'tentative' CHECK (status IN ('tentative', 'confirmed', 'expired')),
    expired_at  timestamptz,
    CHECK ((status = 'expired') = (expired_at IS NOT NULL))
);
COMMENT ON TABLE public.tentative_reservation IS 'Held slots a customer has not confirmed; expire-tentative-for-store expires them after expires_at (RES-004).';
CREATE INDEX tentative_reservation_due_idx ON public.tentative_reservation (store_id, expires_at) WHERE status = 'tentative';

CREATE TABLE public.sale (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    store_id   uuid NOT NULL DEFAULT public.app_current_store_id() REFERENCES public.store (id) ON DELETE CASCADE,
    sold_at    timestamptz NOT NULL,
    amount_yen integer NOT NULL CHECK (amount_yen >= 0)
);
COMMENT ON TABLE public.sale IS 'One register sale; aggregate-daily-sales-for-store sums them per business day (REG-002).';
CREATE INDEX sale_store_sold_at_idx ON public.sale (store_id, sold_at);

CREATE TABLE public.daily_sales (
    store_id      uuid NOT NULL DEFAULT public.app_current_store_id() REFERENCES public.store (id) ON DELETE CASCADE,
    sales_date    date NOT NULL,
    total_yen     bigint NOT NULL,
    sale_count    integer NOT NULL,
    aggregated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (store_id, sales_date)
);
COMMENT ON TABLE public.daily_sales IS 'Sales per store and business day (in the store''s time zone), written by aggregate-daily-sales-for-store; re-aggregating a day overwrites it.';

CREATE TABLE public.customer (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    store_id   uuid NOT NULL DEFAULT public.app_current_store_id() REFERENCES public.store (id) ON DELETE CASCADE,
    name       text NOT NULL,
    email      text,
    deleted_at timestamptz
);
COMMENT ON TABLE public.customer IS 'Customers; a soft-deleted one (deleted_at) is removed for good by cleanup-deleted-customers-for-store after 90 days (CUS-001 AF-4).';
CREATE INDEX customer_deleted_idx ON public.customer (store_id, deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE public.customer_note (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    store_id    uuid NOT NULL DEFAULT public.app_current_store_id() REFERENCES public.store (id) ON DELETE CASCADE,
    customer_id uuid NOT NULL REFERENCES public.customer (id) ON DELETE CASCADE,
    body        text NOT NULL,
    deleted_at  timestamptz
);
COMMENT ON TABLE public.customer_note IS 'Notes on a customer; a soft-deleted one is purged by purge-deleted-customer-notes-for-store after 7 days (CUS-002 §7).';
CREATE INDEX customer_note_deleted_idx ON public.customer_note (store_id, deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE public.operator_session (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    store_id       uuid NOT NULL DEFAULT public.app_current_store_id() REFERENCES public.store (id) ON DELETE CASCADE,
    operator_email text NOT NULL,
    expires_at     timestamptz NOT NULL
);
COMMENT ON TABLE public.operator_session IS 'Signed-in operators of a store; cleanup-expired-operator-sessions removes the expired ones (TEN-002).';
CREATE INDEX operator_session_expires_idx ON public.operator_session (store_id, expires_at);

CREATE TABLE public.operator_invitation (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    store_id    uuid NOT NULL DEFAULT public.app_current_store_id() REFERENCES public.store (id) ON DELETE CASCADE,
    email       text NOT NULL CHECK (email LIKE '%_@_%'),
    token       uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz
);
COMMENT ON TABLE public.operator_invitation IS 'Invitations of operators to a store, mailed by send-operator-invitation-email; cleanup-expired-operator-invitations removes those expired and not accepted (TEN-002, TEN-003).';
CREATE INDEX operator_invitation_expires_idx ON public.operator_invitation (store_id, expires_at) WHERE accepted_at IS NULL;

-- The idempotency record of the invitation mail (seed 001): a row means the mail was handed to
-- the SMTP server. The sender inserts it in the transaction that sends, so a second run of the
-- job (a retry, a duplicate job, a second worker) finds it, or waits on it, and sends nothing.
CREATE TABLE public.invitation_email_delivery (
    invitation_id uuid PRIMARY KEY REFERENCES public.operator_invitation (id) ON DELETE CASCADE,
    store_id      uuid NOT NULL DEFAULT public.app_current_store_id() REFERENCES public.store (id) ON DELETE CASCADE,
    message_id    text NOT NULL,
    job_id        bigint NOT NULL,
    sent_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE public.invitation_email_delivery IS 'One row per invitation mail handed to SMTP: the idempotency record that makes send-operator-invitation-email send once.';

-- Row-level security: forced (the owner too), one policy per table, the same store for reads
-- and writes.
-- +goose StatementBegin
DO $$
DECLARE
    v_table text;
BEGIN
    FOREACH v_table IN ARRAY ARRAY['tentative_reservation', 'sale', 'daily_sales', 'customer', 'customer_note',
                                   'operator_session', 'operator_invitation', 'invitation_email_delivery']
    LOOP
        EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', v_table);
        EXECUTE format('ALTER TABLE public.%I FORCE ROW LEVEL SECURITY', v_table);
        EXECUTE format('CREATE POLICY %I ON public.%I USING (store_id = public.app_current_store_id()) '
                       'WITH CHECK (store_id = public.app_current_store_id())', v_table || '_own_store', v_table);
        -- worker_runtime runs the store tasks; salon_api is the application (seed 000 §6.1).
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON public.%I TO worker_runtime, salon_api', v_table);
    END LOOP;
END
$$;
-- +goose StatementEnd
GRANT EXECUTE ON FUNCTION public.app_current_store_id() TO worker_runtime, salon_api;

-- +goose Down
DROP TABLE public.invitation_email_delivery, public.operator_invitation, public.operator_session,
    public.customer_note, public.customer, public.daily_sales, public.sale, public.tentative_reservation;
REVOKE SELECT (id, name, timezone) ON public.store FROM worker_runtime, salon_api;
ALTER TABLE public.store DROP COLUMN IF EXISTS timezone;
DROP FUNCTION public.app_current_store_id();
