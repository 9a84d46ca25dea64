-- +goose Up
-- The invitation mail leaves the tenant transaction (seed 001: no side effect inside a
-- transaction that may still roll back). send-operator-invitation-email now records the mail in
-- invitation_email_delivery, its outbox, and enqueues deliver-operator-invitation-email in the
-- same transaction; the delivery job sends it after that commit, outside any transaction, and
-- then sets sent_at. A row with sent_at NULL is a mail decided and not yet accepted by the SMTP
-- server. Rows written before this migration were sent already and keep their sent_at.
ALTER TABLE public.invitation_email_delivery
    ADD COLUMN to_address      text,
    ADD COLUMN subject         text,
    ADD COLUMN body            text,
    ADD COLUMN recorded_at     timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN delivery_job_id bigint,
    ALTER COLUMN sent_at DROP NOT NULL,
    ALTER COLUMN sent_at DROP DEFAULT;
COMMENT ON TABLE public.invitation_email_delivery IS 'The outbox of the invitation mails, one row per invitation: written with the deliver-operator-invitation-email job in the tenant transaction of send-operator-invitation-email (so a second job for the invitation finds it and records nothing), sent after that commit by the delivery job, which sets sent_at once the SMTP server accepted the mail.';
COMMENT ON COLUMN public.invitation_email_delivery.job_id IS 'The send-operator-invitation-email job that recorded the mail.';
COMMENT ON COLUMN public.invitation_email_delivery.delivery_job_id IS 'The deliver-operator-invitation-email job whose delivery the SMTP server accepted.';
COMMENT ON COLUMN public.invitation_email_delivery.sent_at IS 'When the SMTP server accepted the mail; NULL while it is recorded and not yet delivered.';
COMMENT ON COLUMN public.invitation_email_delivery.to_address IS 'The recipient, with subject and body the mail as recorded; NULL only in rows sent before the outbox.';

-- +goose Down
DELETE FROM public.invitation_email_delivery WHERE sent_at IS NULL;
ALTER TABLE public.invitation_email_delivery
    DROP COLUMN to_address, DROP COLUMN subject, DROP COLUMN body, DROP COLUMN recorded_at, DROP COLUMN delivery_job_id,
    ALTER COLUMN sent_at SET DEFAULT now(),
    ALTER COLUMN sent_at SET NOT NULL;
COMMENT ON TABLE public.invitation_email_delivery IS 'One row per invitation mail handed to SMTP: the idempotency record that makes send-operator-invitation-email send once.';
COMMENT ON COLUMN public.invitation_email_delivery.job_id IS NULL;
COMMENT ON COLUMN public.invitation_email_delivery.sent_at IS NULL;
