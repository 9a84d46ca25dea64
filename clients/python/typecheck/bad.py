"""Calls that must NOT pass pyright (GWT-2 for Python). Each refused line ends with the rule pyright
must report there (# want: reportCallIssue reportArgumentType); tests/test_typecheck.py compares, line by line."""

from uuid import UUID

import psycopg

from jobq_client.tasks import enqueue_job


def bad(conn: psycopg.Connection, store_id: UUID) -> None:
    # A store task without its storeId.
    enqueue_job(conn, "aggregate-daily-sales-for-store", {"targetDate": "2026-05-05"})  # want: reportCallIssue reportArgumentType
    # A wrong type: userId is an integer.
    enqueue_job(conn, "send-welcome-email", {"storeId": store_id, "userId": "42"})  # want: reportCallIssue reportArgumentType
    # A task the registry does not declare.
    enqueue_job(conn, "send-welcome-mail", {"storeId": store_id, "userId": 42})  # want: reportCallIssue reportArgumentType
    # A key the contract does not name.
    enqueue_job(conn, "expire-tentative-for-store", {"storeId": store_id, "reason": "cron"})  # want: reportCallIssue reportArgumentType
    # A system task with a store id.
    enqueue_job(conn, "aggregate-daily-sales", {"targetDate": "2026-05-05", "reason": "cron"}, store_id=store_id)  # want: reportCallIssue reportArgumentType
    # A store task whose contract lacks storeId, without store_id.
    enqueue_job(conn, "rebuild-search-index", {"full": True})  # want: reportCallIssue reportArgumentType
    # A job key mode jobq does not know.
    enqueue_job(conn, "ping", {}, job_key="k", job_key_mode="keep")  # want: reportCallIssue reportArgumentType
    # Workflow options jobq does not know: a parent's failure, a sequence's failure, a parent that is no id.
    enqueue_job(conn, "ping", {}, depends_on=[1], on_parent_failure="explode")  # want: reportCallIssue reportArgumentType
    enqueue_job(conn, "ping", {}, sequence_key="nightly", on_sequence_failure="skip")  # want: reportCallIssue reportArgumentType
    enqueue_job(conn, "ping", {}, depends_on=["1"])  # want: reportCallIssue reportArgumentType
