"""Results and waiting for them (docs/results.md): ``job_result`` reads jobq.job_result,
``await_result`` waits for a job to end on the channel jobq_done, whose notifications carry only
the job's id. Hand-written; it runs on the application's own psycopg 3 connection."""

from __future__ import annotations

import json
import select
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

import psycopg

from jobq_client.tasks import error_from_db

DONE_CHANNEL = "jobq_done"
"""The channel on which jobq notifies, at the commit, that a job ended; the payload is its id alone."""

T = TypeVar("T")


@dataclass(frozen=True)
class JobResult(Generic[T]):
    """What jobq.job_result says of a job: its state, the result of a succeeded job (any JSON value;
    None when none or while it runs) and when it ended (None while it lives)."""

    job_id: int
    state: str
    result: T | None
    finished_at: datetime | None

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


class AwaitTimeout(TimeoutError):
    """Raised by await_result when the job has not ended within the timeout."""

    def __init__(self, job_id: int, state: str, timeout: float) -> None:
        super().__init__(f"jobq: job {job_id} has not ended within {timeout} s (state {state})")
        self.job_id = job_id
        self.state = state


def job_result(conn: psycopg.Connection[Any], job_id: int) -> JobResult[Any]:
    """The state and result of job ``job_id`` as the connection's role may read it: an application
    only its store's jobs (app.current_store_id); any other id raises NotFoundError (JQ202)."""
    try:
        row = conn.execute("SELECT state, result::text, finished_at FROM jobq.job_result(%s)", (job_id,)).fetchone()
    except psycopg.Error as err:
        raise error_from_db(err) from None
    assert row is not None
    state, result, finished_at = row
    return JobResult(job_id, state, None if result is None else json.loads(result), finished_at)


DONE_RETRY_MIN = 0.001
"""await_result's first wait, in seconds, before it asks again while jobq.hold_done_doorbell or
jobq.done_quiet says false (an end of a job probes the doorbell, or one that did not notify is in
flight); it doubles up to DONE_RETRY_MAX."""
DONE_RETRY_MAX = 0.1


def _ask(conn: psycopg.Connection[Any], fn: str) -> bool:
    try:
        row = conn.execute(f"SELECT jobq.{fn}()").fetchone()
    except psycopg.Error as err:
        raise error_from_db(err) from None
    assert row is not None
    return bool(row[0])


def await_result(conn: psycopg.Connection[Any], job_id: int, timeout: float, poll: float = 5.0) -> JobResult[Any]:
    """Waits until job ``job_id`` has ended (succeeded, dead or canceled) and returns its state and
    result; a job that has ended already returns at once. It LISTENs on jobq_done first, then holds
    the done doorbell (jobq.hold_done_doorbell: the engine notifies the end of a job only while some
    awaiter holds it) and reads the job until no end that could have missed the doorbell is in
    flight (jobq.done_quiet), then reads it again on each notification naming it (and every ``poll``
    seconds in any case), so no wake-up is lost. The doorbell is let go and the LISTEN undone on
    every way out. Raises AwaitTimeout after ``timeout`` seconds. ``conn`` must be in autocommit
    mode (a LISTEN inside a transaction waits for its commit) and act for the job's store
    (app.current_store_id set on the session)."""
    if not conn.autocommit:
        raise ValueError("jobq: await_result needs a connection in autocommit mode (psycopg.connect(..., autocommit=True))")
    want = str(job_id)
    notified = False

    def on_notify(n: psycopg.Notify) -> None:
        nonlocal notified
        if n.channel == DONE_CHANNEL and n.payload == want:
            notified = True

    deadline = time.monotonic() + timeout
    held = False
    conn.add_notify_handler(on_notify)
    try:
        conn.execute(f"LISTEN {DONE_CHANNEL}")
        # Hold the doorbell, then read until no silent end is in flight: a job that ended before
        # is read here, one that ends after notifies.
        delay = DONE_RETRY_MIN
        while True:
            if not held:
                held = _ask(conn, "hold_done_doorbell")
            quiet = held and _ask(conn, "done_quiet")
            notified = False
            r = job_result(conn, job_id)
            if r.finished:
                return r
            if time.monotonic() >= deadline:
                raise AwaitTimeout(job_id, r.state, timeout)
            if quiet:
                break
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(2 * delay, DONE_RETRY_MAX)
        while True:
            if time.monotonic() >= deadline:
                raise AwaitTimeout(job_id, r.state, timeout)
            # Wait for a notification naming the job, or the poll, then read it again. psycopg
            # hands notifications to the handler while it processes a statement's answer: after the
            # socket turns readable, a trivial statement lets it read what arrived.
            wait_until = min(deadline, time.monotonic() + poll)
            while not notified:
                left = wait_until - time.monotonic()
                if left <= 0:
                    break
                select.select([conn.fileno()], [], [], left)
                conn.execute("SELECT 1")
            notified = False
            r = job_result(conn, job_id)
            if r.finished:
                return r
    finally:
        conn.remove_notify_handler(on_notify)
        try:
            if held:
                conn.execute("SELECT jobq.release_done_doorbell()")
            conn.execute(f"UNLISTEN {DONE_CHANNEL}")
        except psycopg.Error:
            # A session that cannot say so is closed: its session lock goes with it.
            conn.close()
