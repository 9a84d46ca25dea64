"""The Python client against a real database (clients/test.sh runs it inside jobq sandbox, on a
database holding clients/testdata/registry.sql): enqueue over psycopg 3 in the application's
transaction and in a tenant's, the run-time check of payloads, and each exception class from an
error the database raised."""

import os
import unittest
from datetime import date, datetime, timezone
from uuid import UUID

import psycopg

from jobq_client import tasks
from jobq_client.runtime import JobqError, payload_problem
from jobq_client.tasks import enqueue_job, error_from_db, set_tenant, with_tenant

STORE_A = "5b0c1a7e-0000-4000-8000-0000000000aa"
STORE_B = UUID("5b0c1a7e-0000-4000-8000-0000000000bb")


def url(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: run clients/test.sh inside jobq sandbox")
    return value


class Base(unittest.TestCase):
    def setUp(self) -> None:
        self.admin = psycopg.connect(url("JOBQ_CLIENTS_ADMIN_URL"), autocommit=True)
        self.app = psycopg.connect(url("JOBQ_CLIENTS_APP_URL"))
        self.addCleanup(self.admin.close)
        self.addCleanup(self.app.close)

    def job(self, job_id: int):
        return self.admin.execute(
            "SELECT task, payload, store_id::text, queue, priority, max_attempts, job_key, run_at FROM jobq.jobs WHERE id = %s",
            (job_id,),
        ).fetchone()


class EnqueueTest(Base):
    def test_enqueue_in_the_applications_transaction(self) -> None:
        with self.app.transaction():
            set_tenant(self.app, STORE_A)
            job_id = enqueue_job(self.app, "expire-tentative-for-store", {"storeId": STORE_A},
                                 job_key=f"expire_tentative:{STORE_A}", job_key_mode="preserve_run_at", max_attempts=7,
                                 queue="tentative", priority=-3, run_at=datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
            self.assertIsNone(self.job(job_id), "not visible before the commit")
        self.assertEqual(self.job(job_id), ("expire-tentative-for-store", {"storeId": STORE_A}, STORE_A, "tentative", -3, 7,
                                            f"expire_tentative:{STORE_A}", datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone.utc)))

    def test_a_rolled_back_transaction_leaves_no_job(self) -> None:
        with self.assertRaises(RuntimeError):
            with with_tenant(self.app, STORE_A):
                job_id = enqueue_job(self.app, "send-welcome-email", {"storeId": STORE_A, "userId": 5})
                raise RuntimeError("handler failed")
        self.assertIsNone(self.job(job_id))

    def test_with_tenant_commits_in_the_store_and_ends_the_setting(self) -> None:
        with with_tenant(self.app, STORE_B) as tx:
            job_id = enqueue_job(tx, "aggregate-daily-sales-for-store", {"storeId": STORE_B, "targetDate": date(2026, 5, 5)})
        row = self.job(job_id)
        assert row is not None
        self.assertEqual(row[2], str(STORE_B))
        self.assertEqual(row[1], {"storeId": str(STORE_B), "targetDate": "2026-05-05"})
        self.assertEqual(row[5], 25)  # the task's default
        setting = self.app.execute("SELECT coalesce(current_setting('app.current_store_id', true), '')").fetchone()
        self.assertEqual(setting, ("",))
        self.app.rollback()

    def test_a_store_task_takes_its_store_from_store_id(self) -> None:
        with with_tenant(self.admin, STORE_A):
            job_id = enqueue_job(self.admin, "rebuild-search-index", {"full": True}, store_id=STORE_A)
        row = self.job(job_id)
        assert row is not None
        self.assertEqual(row[2], STORE_A)

    def test_every_contract_type(self) -> None:
        job_id = enqueue_job(self.admin, "import-catalog-v2", {
            "file": "a.csv", "rows": 3, "ratio": 0.5, "dryRun": None, "options": {"a": 1}, "tags": ("x",), "extra": [1],
            "batchId": UUID("5b0c1a7e-0000-4000-8000-000000000001"), "day": date(2024, 2, 29),
            "notBefore": datetime(2026, 5, 5, 3, 0, tzinfo=timezone.utc), "class": "c", "from": "f", "content-type": "text/csv",
        })
        row = self.job(job_id)
        assert row is not None
        self.assertEqual(row[1]["notBefore"], "2026-05-05T03:00:00+00:00")
        self.assertEqual(row[1]["day"], "2024-02-29")
        self.assertEqual(row[1]["tags"], ["x"])


class RunTimeCheckTest(Base):
    """enqueue_job refuses what jobq.enqueue would, before any round trip: the same class, in jobq's words."""

    def refused(self, cls: type[JobqError], message: str, name: str, payload: object, **options: object) -> None:
        before = self.admin.execute("SELECT count(*) FROM jobq.jobs").fetchone()
        with self.assertRaises(cls) as caught:
            enqueue_job(self.admin, name, payload, **options)  # type: ignore[call-overload]
        self.assertIn(message, str(caught.exception))
        self.assertIsNone(caught.exception.__cause__, "refused by the client, not the database")
        self.assertTrue(caught.exception.hint)
        self.assertEqual(self.admin.execute("SELECT count(*) FROM jobq.jobs").fetchone(), before)

    def test_refusals(self) -> None:
        self.refused(tasks.UnknownTaskError, "task 'send-welcome-mail' is not declared", "send-welcome-mail", {})
        self.refused(tasks.PayloadInvalidError, "required key storeId is missing",
                     "aggregate-daily-sales-for-store", {"targetDate": "2026-05-05"})
        self.refused(tasks.PayloadInvalidError, 'key userId must be an integer, not "42"',
                     "send-welcome-email", {"storeId": STORE_A, "userId": "42"})
        self.refused(tasks.PayloadInvalidError, "key userId must be an integer, not true",
                     "send-welcome-email", {"storeId": STORE_A, "userId": True})
        self.refused(tasks.PayloadInvalidError, 'key targetDate must be a date, not "2026-02-29"',
                     "aggregate-daily-sales", {"targetDate": "2026-02-29", "reason": "cron"})
        self.refused(tasks.PayloadInvalidError, "key cutoffIso must be a timestamp",
                     "cleanup-deleted-customers-for-store", {"storeId": STORE_A, "cutoffIso": "2026-05-05T25:61"})
        self.refused(tasks.PayloadInvalidError, "key storeId must be a uuid",
                     "expire-tentative-for-store", {"storeId": "store-7"})
        self.refused(tasks.StoreNotAllowedError, "is a system task", "ping", {}, store_id=STORE_A)
        self.refused(tasks.StoreRequiredError, "is store-scoped", "rebuild-search-index", {"full": True})
        self.refused(tasks.PayloadNotObjectError, "not a dict", "ping", [1])

    def test_the_checks_agree_with_jobq(self) -> None:
        """payload_problem says what jobq.payload_problem says, value by value."""
        cases = [
            ("date", "2024-02-29"), ("date", "2026-02-29"), ("date", "2026-13-45"), ("date", "0000-01-01"), ("date", "20260505"),
            ("timestamp", "2026-05-05T03:00:00Z"), ("timestamp", "2026-05-05 23:59:59.999+05:30"), ("timestamp", "2026-05-05T24:00"),
            ("timestamp", "2026-02-30T00:00"), ("uuid", STORE_A.upper()), ("uuid", "5b0c1a7e00004000800000000000000a"),
            ("integer", 3), ("integer", 3.5), ("integer", True), ("number", 2.5), ("number", False), ("string", ""),
            ("object", {}), ("array", []), ("boolean", 0), ("any", None),
        ]
        for typ, value in cases:
            with self.subTest(typ=typ, value=value):
                import json
                want = self.admin.execute("SELECT jobq.payload_problem(%s::jsonb, %s::jsonb)",
                                          (json.dumps({"k": typ}), json.dumps({"k": value}))).fetchone()
                assert want is not None
                self.assertEqual(payload_problem({"k": typ}, {"k": value}), want[0])


class WorkflowTest(Base):
    """The workflow options (docs/dependencies.md) reach jobq.enqueue: a dependent or sequenced job waits blocked."""

    def workflow(self, job_id: int):
        return self.admin.execute(
            "SELECT state, depends_on, on_parent_failure, sequence_key, on_sequence_failure FROM jobq.jobs WHERE id = %s",
            (job_id,),
        ).fetchone()

    def test_a_child_depending_on_its_parents_is_blocked(self) -> None:
        parent = enqueue_job(self.admin, "ping", {}, run_at=datetime(2030, 1, 1, tzinfo=timezone.utc))
        other = enqueue_job(self.admin, "ping", {})
        child = enqueue_job(self.admin, "ping", {}, depends_on=[parent, other], on_parent_failure="run")
        self.assertEqual(self.workflow(child), ("blocked", [parent, other], "run", None, None))
        # A tuple is a sequence too; the default on_parent_failure is cancel.
        grandchild = enqueue_job(self.admin, "ping", {}, depends_on=(child,))
        self.assertEqual(self.workflow(grandchild), ("blocked", [child], "cancel", None, None))
        # An empty sequence is no dependency: a plain job.
        plain = enqueue_job(self.admin, "ping", {}, depends_on=[])
        self.assertEqual(self.workflow(plain), ("queued", None, None, None, None))

    def test_the_second_job_of_a_sequence_is_blocked(self) -> None:
        first = enqueue_job(self.admin, "aggregate-daily-sales", {"targetDate": "2026-05-05", "reason": "cron"},
                            sequence_key="nightly-py")
        second = enqueue_job(self.admin, "aggregate-daily-sales", {"targetDate": "2026-05-06", "reason": "cron"},
                             sequence_key="nightly-py", on_sequence_failure="continue")
        self.assertEqual(self.workflow(first), ("queued", None, None, "nightly-py", "hold"))
        self.assertEqual(self.workflow(second), ("blocked", None, None, "nightly-py", "continue"))

    def test_refusals(self) -> None:
        parent = enqueue_job(self.admin, "ping", {})
        with self.assertRaises(tasks.InvalidArgumentError) as bad:
            enqueue_job(self.admin, "ping", {}, depends_on=[parent], on_parent_failure="explode")  # type: ignore[call-overload]
        self.assertEqual(bad.exception.code, "JOB.INVALID_ARGUMENT")
        with self.assertRaises(tasks.DependencyNotFoundError) as missing:
            enqueue_job(self.admin, "ping", {}, depends_on=[9_000_000_000_000])
        self.assertEqual(missing.exception.code, "JOB.DEPENDENCY_NOT_FOUND")
        with self.assertRaises(tasks.InvalidArgumentError):
            enqueue_job(self.admin, "ping", {}, sequence_key="  ")
        # Checked before the database: a string is a sequence of characters, not of ids.
        before = self.admin.execute("SELECT count(*) FROM jobq.jobs").fetchone()
        with self.assertRaises(TypeError):
            enqueue_job(self.admin, "ping", {}, depends_on=str(parent))  # type: ignore[call-overload]
        with self.assertRaises(TypeError):
            enqueue_job(self.admin, "ping", {}, depends_on=[str(parent)])  # type: ignore[call-overload]
        self.assertEqual(self.admin.execute("SELECT count(*) FROM jobq.jobs").fetchone(), before)


class ErrorTest(Base):
    def test_database_errors_become_their_class(self) -> None:
        """Errors only the database can see: another store's id, a system task not open to applications."""
        with self.assertRaises(tasks.TenantMismatchError) as caught:
            with with_tenant(self.app, STORE_A):
                enqueue_job(self.app, "expire-tentative-for-store", {"storeId": str(STORE_B)})
        self.assertIsInstance(caught.exception.__cause__, psycopg.Error)
        self.assertEqual(caught.exception.sqlstate, "JQ406")
        with self.assertRaises(tasks.NotAllowedError):
            enqueue_job(self.app, "expire-tentative-reservations", {"reason": "cron"})
        self.app.rollback()
        with self.assertRaises(tasks.MaxAttemptsInvalidError):
            enqueue_job(self.admin, "ping", {}, max_attempts=0)
        with self.assertRaises(tasks.UnknownJobKeyModeError):
            enqueue_job(self.admin, "ping", {}, job_key="k", job_key_mode="keep")  # type: ignore[call-overload]

    def test_every_catalogued_error_becomes_its_own_class(self) -> None:
        rows = self.admin.execute("SELECT code, sqlstate, hint FROM jobq.error_codes ORDER BY sqlstate").fetchall()
        classes = [v for v in vars(tasks).values() if isinstance(v, type) and issubclass(v, JobqError) and v is not JobqError]
        self.assertEqual(len(classes), len(rows), "one class per catalogued error")
        for code, sqlstate, hint in rows:
            with self.subTest(code=code):
                with self.assertRaises(psycopg.Error) as caught:
                    self.admin.execute("SELECT jobq._raise(%s, 'from the test')", (code,))
                typed = error_from_db(caught.exception)
                self.assertIsInstance(typed, tasks.error_class(code))
                assert isinstance(typed, JobqError)
                self.assertEqual((typed.code, typed.sqlstate, typed.hint, str(typed)), (code, sqlstate, hint, f"{code}: from the test"))
                self.assertIs(typed.__cause__, caught.exception)
        with self.assertRaises(psycopg.Error) as other:
            self.admin.execute("SELECT 1/0")
        self.assertIs(error_from_db(other.exception), other.exception)


if __name__ == "__main__":
    unittest.main()
