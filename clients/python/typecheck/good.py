"""Calls that must pass pyright (GWT-1 for Python). Checked by tests/test_typecheck.py; never run."""

from datetime import date, datetime, timezone
from uuid import UUID

import psycopg

from jobq_client.tasks import enqueue_job, with_tenant


def good(conn: psycopg.Connection, store_id: UUID) -> list[int]:
    with with_tenant(conn, store_id) as tx:
        return [
            enqueue_job(tx, "aggregate-daily-sales-for-store", {"storeId": store_id, "targetDate": date(2026, 5, 5)}),
            enqueue_job(tx, "expire-tentative-for-store", {"storeId": str(store_id)},
                        job_key=f"expire_tentative:{store_id}", job_key_mode="preserve_run_at", max_attempts=10,
                        run_at=datetime(2030, 1, 1, tzinfo=timezone.utc), queue="q", priority=-5),
            enqueue_job(tx, "send-welcome-email", {"storeId": store_id, "userId": 42}, store_id=store_id),
            enqueue_job(conn, "aggregate-daily-sales", {"targetDate": "2026-05-05", "reason": "cron"}),
            enqueue_job(conn, "ping", {}),
            enqueue_job(conn, "import-catalog-v2", {"file": "a.csv", "rows": 3, "class": "c", "content-type": "text/csv",
                                                    "ratio": 1, "options": {"a": 1}, "tags": [1], "extra": None}),
            enqueue_job(conn, "rebuild-search-index", {"full": True}, store_id=store_id),
            # Workflow options: parents by id (a list or a tuple), a sequence.
            enqueue_job(conn, "ping", {}, depends_on=[enqueue_job(conn, "ping", {}), 12], on_parent_failure="run"),
            enqueue_job(conn, "aggregate-daily-sales", {"targetDate": "2026-05-05", "reason": "cron"},
                        sequence_key="sales", on_sequence_failure="continue"),
            enqueue_job(tx, "send-welcome-email", {"storeId": store_id, "userId": 42}, depends_on=(1, 2),
                        on_parent_failure="cancel", on_sequence_failure="hold"),
        ]
