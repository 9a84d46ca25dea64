"""Results and await_result against a real database (clients/test.sh): a job completed with a
result while a client waits for it, a job of another store refused, a wait that times out, and a
connection that is not in autocommit mode refused."""

import threading
import time
import unittest

import psycopg

from jobq_client.results import AwaitTimeout, await_result, job_result
from jobq_client.tasks import NotFoundError
from tests.test_enqueue import url

STORE_A = "5b0c1a7e-0000-4000-8000-0000000000a2"
STORE_B = "5b0c1a7e-0000-4000-8000-0000000000b2"


class AwaitResultTest(unittest.TestCase):
    def setUp(self) -> None:
        self.admin = psycopg.connect(url("JOBQ_CLIENTS_ADMIN_URL"), autocommit=True)
        self.addCleanup(self.admin.close)

    def app(self, store: str) -> psycopg.Connection:
        conn = psycopg.connect(url("JOBQ_CLIENTS_APP_URL"), autocommit=True, options=f"-c app.current_store_id={store}")
        self.addCleanup(conn.close)
        return conn

    @staticmethod
    def doorbell_holds(conn: psycopg.Connection) -> int:
        """How many holds of the done doorbell (jobq.hold_done_doorbell) the session has."""
        row = conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 1785790468 "
                           "AND objid = 0 AND pid = pg_backend_pid()").fetchone()
        assert row is not None
        return int(row[0])

    def running(self, store: str, queue: str) -> tuple[int, str]:
        self.admin.execute("SELECT jobq.enqueue('expire-tentative-for-store', jsonb_build_object('storeId', %s::text), "
                           "store_id => %s::uuid, queue => %s)", (store, store, queue))
        row = self.admin.execute("SELECT id, lease_token::text FROM jobq.claim_job('py-await', ARRAY[%s], 1)", (queue,)).fetchone()
        assert row is not None
        return row[0], row[1]

    def complete(self, job: tuple[int, str], result: str | None) -> None:
        with psycopg.connect(url("JOBQ_CLIENTS_ADMIN_URL"), autocommit=True) as c:
            c.execute("SELECT jobq.complete_job(%s, %s::uuid, %s::jsonb)", (job[0], job[1], result))

    def test_waits_for_the_job_and_returns_its_result(self) -> None:
        job = self.running(STORE_A, "py_await")
        conn = self.app(STORE_A)
        timer = threading.Timer(0.3, self.complete, (job, '{"total": 42}'))
        timer.start()
        self.addCleanup(timer.cancel)
        r = await_result(conn, job[0], timeout=60, poll=3600)  # the poll never comes: the notification wakes it
        self.assertEqual(r.state, "succeeded")
        self.assertEqual(r.result, {"total": 42})
        self.assertIsNotNone(r.finished_at)
        self.assertEqual(conn.execute("SELECT count(*) FROM pg_listening_channels()").fetchone(), (0,))
        self.assertEqual(self.doorbell_holds(conn), 0, "the done doorbell is let go")
        self.assertEqual(job_result(conn, job[0]).result, {"total": 42})
        self.assertEqual(await_result(conn, job[0], timeout=0.001).result, {"total": 42}, "a finished job returns at once")

    def test_another_stores_job_is_not_found_and_a_running_job_times_out(self) -> None:
        theirs = self.running(STORE_B, "py_await_other")
        mine = self.running(STORE_A, "py_await_slow")
        self.addCleanup(self.complete, theirs, None)
        self.addCleanup(self.complete, mine, None)
        conn = self.app(STORE_A)
        with self.assertRaises(NotFoundError):
            await_result(conn, theirs[0], timeout=1)
        start = time.monotonic()
        with self.assertRaises(AwaitTimeout) as caught:
            await_result(conn, mine[0], timeout=0.3)
        self.assertEqual(caught.exception.state, "running")
        self.assertGreaterEqual(time.monotonic() - start, 0.3)
        self.assertEqual(self.doorbell_holds(conn), 0, "a wait that failed or timed out lets go of the done doorbell")

    def test_refuses_a_connection_in_a_transaction(self) -> None:
        conn = psycopg.connect(url("JOBQ_CLIENTS_APP_URL"))
        self.addCleanup(conn.close)
        with self.assertRaises(ValueError):
            await_result(conn, 1, timeout=1)


if __name__ == "__main__":
    unittest.main()
