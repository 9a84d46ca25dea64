package salon

import (
	"time"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// The payloads of the task catalogue (seed 000 §5.2, §12). A system scheduler's payload carries
// the reason it runs and, when a schedule enqueued it, the slot (SlotAt, filled in by jobq); a
// store task's payload leaves its store out: the store id is a required argument of the task's
// Enqueue (GWT-2: an enqueue without it does not compile), and the job's payload gets storeId
// from it, as jobq.fan_out writes it.

// ExpireTentativeReservations is the payload of the scheduler expire-tentative-reservations.
type ExpireTentativeReservations struct {
	Reason string    `json:"reason"`
	SlotAt time.Time `json:"slotAt,omitzero"`
}

// ExpireTentativeForStore is the payload of expire-tentative-for-store.
type ExpireTentativeForStore struct{}

// AggregateDailySales is the payload of the scheduler aggregate-daily-sales. TargetDate
// (YYYY-MM-DD) is the business day to aggregate; empty means the day before the slot's date in
// BusinessTimeZone (so the 03:00 JST run of 6 May aggregates 5 May; seed GWT-7).
type AggregateDailySales struct {
	TargetDate string    `json:"targetDate,omitempty"`
	Reason     string    `json:"reason"`
	SlotAt     time.Time `json:"slotAt,omitzero"`
}

// AggregateDailySalesForStore is the payload of aggregate-daily-sales-for-store.
type AggregateDailySalesForStore struct {
	TargetDate string `json:"targetDate"`
}

// Cleanup is the payload of the retention schedulers cleanup-deleted-customers,
// purge-deleted-customer-notes, cleanup-expired-operator-sessions and
// cleanup-expired-operator-invitations.
type Cleanup struct {
	Reason string    `json:"reason"`
	SlotAt time.Time `json:"slotAt,omitzero"`
}

// CleanupForStore is the payload of the retention store tasks. CutoffISO is the instant
// (RFC 3339, UTC, milliseconds) before which rows go: computed once by the scheduler from the
// database's clock and the same for every store (seed 000 §7.2).
type CleanupForStore struct {
	CutoffISO string `json:"cutoffIso"`
}

// SendOperatorInvitationEmail is the payload of send-operator-invitation-email.
type SendOperatorInvitationEmail struct {
	InvitationID string `json:"invitationId"`
}

// DeliverOperatorInvitationEmail is the payload of deliver-operator-invitation-email: the
// invitation whose recorded mail (its row of invitation_email_delivery) the job sends.
type DeliverOperatorInvitationEmail struct {
	InvitationID string `json:"invitationId"`
}

// Ping is the payload of the smoke task ping.
type Ping struct{}

// BusinessTimeZone is the zone whose calendar names the business day the daily schedulers
// work on (the salon runs in Japan: UTC 18:00 is 03:00 JST).
const BusinessTimeZone = "Asia/Tokyo"

// Retention periods of seed 000 §7.2: soft-deleted customer notes go after 7 days, soft-deleted
// customers after 90.
const (
	CustomerNoteRetention = 7 * 24 * time.Hour
	CustomerRetention     = 90 * 24 * time.Hour
)

// Attempt limits of seed 000 §7.4; the schedulers (fan-out only) get 3.
const (
	schedulerAttempts      = 3
	expireAttempts         = 10
	aggregateAttempts      = 25
	retentionAttempts      = 5
	invitationMailAttempts = 10
)

// The task catalogue: the twelve tasks of seed 000 §12, the two store tasks that keep the
// operator clean-ups to the fan-out rule (§7.2: a scheduler only fans out; every mutation is a
// *-for-store task), and deliver-operator-invitation-email, which sends an invitation mail after
// the transaction that decided it committed (seed 001: no side effect inside a transaction). Enqueue through these values: a payload of the wrong type does not compile
// (seed GWT-1, GWT-2).
var (
	ExpireTentativeReservationsTask = runner.NewTask[ExpireTentativeReservations]("expire-tentative-reservations",
		jobq.EnqueueOptions{MaxAttempts: schedulerAttempts}).
		WithDescription("System scheduler (every 5 minutes): fans expire-tentative-for-store out to every store.")
	ExpireTentativeForStoreTask = runner.NewStoreTask[ExpireTentativeForStore]("expire-tentative-for-store",
		jobq.EnqueueOptions{MaxAttempts: expireAttempts, JobKeyMode: jobq.JobKeyPreserveRunAt}).
		WithDescription("Expires the store's tentative reservations past expires_at.")

	AggregateDailySalesTask = runner.NewTask[AggregateDailySales]("aggregate-daily-sales",
		jobq.EnqueueOptions{MaxAttempts: schedulerAttempts}).
		WithDescription("System scheduler (UTC 18:00 = JST 03:00): fans aggregate-daily-sales-for-store out for the previous business day.")
	AggregateDailySalesForStoreTask = runner.NewStoreTask[AggregateDailySalesForStore]("aggregate-daily-sales-for-store",
		jobq.EnqueueOptions{MaxAttempts: aggregateAttempts, JobKeyMode: jobq.JobKeyPreserveRunAt}).
		WithDescription("Sums the store's sales of targetDate (its own time zone) into daily_sales.")

	CleanupDeletedCustomersTask = runner.NewTask[Cleanup]("cleanup-deleted-customers",
		jobq.EnqueueOptions{MaxAttempts: schedulerAttempts}).
		WithDescription("System scheduler (UTC 17:00): cutoff = now - 90 days, fans cleanup-deleted-customers-for-store out.")
	CleanupDeletedCustomersForStoreTask = runner.NewStoreTask[CleanupForStore]("cleanup-deleted-customers-for-store",
		jobq.EnqueueOptions{MaxAttempts: retentionAttempts, JobKeyMode: jobq.JobKeyPreserveRunAt}).
		WithDescription("Deletes for good the store's customers soft-deleted before cutoffIso.")

	PurgeDeletedCustomerNotesTask = runner.NewTask[Cleanup]("purge-deleted-customer-notes",
		jobq.EnqueueOptions{MaxAttempts: schedulerAttempts}).
		WithDescription("System scheduler (UTC 15:00): cutoff = now - 7 days, fans purge-deleted-customer-notes-for-store out.")
	PurgeDeletedCustomerNotesForStoreTask = runner.NewStoreTask[CleanupForStore]("purge-deleted-customer-notes-for-store",
		jobq.EnqueueOptions{MaxAttempts: retentionAttempts, JobKeyMode: jobq.JobKeyPreserveRunAt}).
		WithDescription("Deletes for good the store's customer notes soft-deleted before cutoffIso.")

	CleanupExpiredOperatorSessionsTask = runner.NewTask[Cleanup]("cleanup-expired-operator-sessions",
		jobq.EnqueueOptions{MaxAttempts: schedulerAttempts}).
		WithDescription("System scheduler (UTC 16:00): cutoff = now, fans cleanup-expired-operator-sessions-for-store out.")
	CleanupExpiredOperatorSessionsForStoreTask = runner.NewStoreTask[CleanupForStore]("cleanup-expired-operator-sessions-for-store",
		jobq.EnqueueOptions{MaxAttempts: retentionAttempts, JobKeyMode: jobq.JobKeyPreserveRunAt}).
		WithDescription("Deletes the store's operator sessions that expired before cutoffIso.")

	CleanupExpiredOperatorInvitationsTask = runner.NewTask[Cleanup]("cleanup-expired-operator-invitations",
		jobq.EnqueueOptions{MaxAttempts: schedulerAttempts}).
		WithDescription("System scheduler (UTC 16:00): cutoff = now, fans cleanup-expired-operator-invitations-for-store out.")
	CleanupExpiredOperatorInvitationsForStoreTask = runner.NewStoreTask[CleanupForStore]("cleanup-expired-operator-invitations-for-store",
		jobq.EnqueueOptions{MaxAttempts: retentionAttempts, JobKeyMode: jobq.JobKeyPreserveRunAt}).
		WithDescription("Deletes the store's invitations that expired before cutoffIso without being accepted.")

	SendOperatorInvitationEmailTask = runner.NewStoreTask[SendOperatorInvitationEmail]("send-operator-invitation-email",
		jobq.EnqueueOptions{MaxAttempts: invitationMailAttempts, JobKeyMode: jobq.JobKeyPreserveRunAt}).
		WithDescription("Records an operator invitation's mail, once per invitation, in its outbox (invitation_email_delivery) and enqueues its delivery in the same transaction.")
	DeliverOperatorInvitationEmailTask = runner.NewStoreTask[DeliverOperatorInvitationEmail]("deliver-operator-invitation-email",
		jobq.EnqueueOptions{MaxAttempts: invitationMailAttempts}).
		WithDescription("Sends a recorded invitation mail over SMTP, outside any transaction, and marks it sent.")

	PingTask = runner.NewTask[Ping]("ping", jobq.EnqueueOptions{}).
			WithDescription("Smoke test: completes at once.")
)

// The job keys of seed 000 §7.2, as fan-out templates ({storeId} is each store's id). All use
// mode preserve_run_at: a second scheduler run while a store's job waits adds nothing and keeps
// its run_at (GWT-6).

// ExpireTentativeKey is the job key template of expire-tentative-for-store.
const ExpireTentativeKey = "expire_tentative:{storeId}"

// AggregateDailySalesKey returns the job key template of aggregate-daily-sales-for-store for a day.
func AggregateDailySalesKey(targetDate string) string {
	return "aggregate_daily_sales:{storeId}:" + targetDate
}

// CleanupCustomersKey returns the job key template of cleanup-deleted-customers-for-store.
func CleanupCustomersKey(cutoffISO string) string { return "cleanup_customers:{storeId}:" + cutoffISO }

// PurgeCustomerNotesKey returns the job key template of purge-deleted-customer-notes-for-store.
func PurgeCustomerNotesKey(cutoffISO string) string {
	return "purge_customer_notes:{storeId}:" + cutoffISO
}

// CleanupOperatorSessionsKey returns the job key template of cleanup-expired-operator-sessions-for-store.
func CleanupOperatorSessionsKey(cutoffISO string) string {
	return "cleanup_operator_sessions:{storeId}:" + cutoffISO
}

// CleanupOperatorInvitationsKey returns the job key template of cleanup-expired-operator-invitations-for-store.
func CleanupOperatorInvitationsKey(cutoffISO string) string {
	return "cleanup_operator_invitations:{storeId}:" + cutoffISO
}

// InvitationEmailKey returns the job key of send-operator-invitation-email: one waiting mail
// job per invitation.
func InvitationEmailKey(invitationID string) string {
	return "operator_invitation_email:" + invitationID
}

// Schedules is the cron table of seed 000 §7.3, declared in code: the runner declares it at
// start, and the leader enqueues one scheduler job per slot (UTC wall clock). Each slot's job
// carries its slot in slotAt.
func Schedules() []jobq.ScheduleDefinition {
	cron := Cleanup{Reason: "cron"}
	return []jobq.ScheduleDefinition{
		ExpireTentativeReservationsTask.Schedule("expire-tentative-reservations", "*/5 * * * *", ExpireTentativeReservations{Reason: "cron"}),
		AggregateDailySalesTask.Schedule("aggregate-daily-sales", "0 18 * * *", AggregateDailySales{Reason: "cron"}),
		CleanupDeletedCustomersTask.Schedule("cleanup-deleted-customers", "0 17 * * *", cron),
		CleanupExpiredOperatorSessionsTask.Schedule("cleanup-expired-operator-sessions", "0 16 * * *", cron),
		CleanupExpiredOperatorInvitationsTask.Schedule("cleanup-expired-operator-invitations", "0 16 * * *", cron),
		PurgeDeletedCustomerNotesTask.Schedule("purge-deleted-customer-notes", "0 15 * * *", cron),
	}
}
