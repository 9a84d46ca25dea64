"""The runtime of jobq's Python client: what the module of ``jobq codegen python`` (tasks.py) calls.

It checks a payload against its task's contract as jobq.enqueue does, then runs
``SELECT jobq.enqueue(...)`` on the application's own psycopg 3 connection, in its transaction; it
opens no connection of its own. Hand-written; docs/clients.md.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, ClassVar, Literal, LiteralString, cast
from uuid import UUID

import psycopg

Conn = psycopg.Connection[Any]
"""The connection enqueue_job and with_tenant run on: a psycopg 3 connection."""

JobKeyMode = Literal["replace", "preserve_run_at", "unsafe_dedupe"]

OnParentFailure = Literal["cancel", "run"]
"""What a dead or canceled parent does to its dependent job: cancel it too (the default), or run it anyway."""

OnSequenceFailure = Literal["hold", "continue"]
"""What a job of a sequence dying does to the rest: hold the next job (the default), or continue."""


class JobqError(Exception):
    """An error of jobq's catalogue (jobq.error_codes); the generated classes extend it."""

    code: ClassVar[str] = ""
    sqlstate: ClassVar[str] = ""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


@dataclass(frozen=True)
class Contract:
    """A task's scope (system or store) and payload contract ({"key": "type", "optional?": "type"})."""

    scope: str
    schema: Mapping[str, str]


_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_DAY = re.compile(r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$")
_TIMESTAMP = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?"
    r"(Z|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)?$"
)


def _calendar_day(s: str) -> bool:
    """Whether s is a day YYYY-MM-DD of years 0001 to 9999 (jobq._calendar_day_ok)."""
    if not _DAY.match(s):
        return False
    try:
        date(int(s[0:4]), int(s[5:7]), int(s[8:10]))
    except ValueError:
        return False
    return True


def _type_ok(value: Any, typ: str) -> bool:
    """Whether a Python value becomes JSON of contract type typ (jobq._json_type_ok)."""
    if typ == "any":
        return True
    if typ == "string":
        return isinstance(value, str)
    if typ == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if typ == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if typ == "boolean":
        return isinstance(value, bool)
    if typ == "object":
        return isinstance(value, Mapping)
    if typ == "array":
        return isinstance(value, (list, tuple))
    if typ == "uuid":
        return isinstance(value, UUID) or (isinstance(value, str) and bool(_UUID.match(value)))
    if typ == "date":
        if isinstance(value, date) and not isinstance(value, datetime):
            return 1 <= value.year <= 9999
        return isinstance(value, str) and _calendar_day(value)
    if typ == "timestamp":
        if isinstance(value, datetime):
            return True
        return isinstance(value, str) and bool(_TIMESTAMP.match(value)) and _calendar_day(value[:10])
    return False


def payload_problem(schema: Mapping[str, str], payload: Mapping[str, Any]) -> str | None:
    """The first way payload breaks the contract, in jobq.payload_problem's words, or None."""
    for raw in sorted(schema):
        typ = schema[raw]
        key = raw.rstrip("?")
        optional = raw.endswith("?")
        if key not in payload:
            if not optional:
                return f"required key {key} is missing"
            continue
        value = payload[key]
        if optional and value is None:
            continue
        if not _type_ok(value, typ):
            article = "an" if typ in ("integer", "object", "array", "any") else "a"
            return f"key {key} must be {article} {typ}, not {_json(value)}"
    return None


def _encode(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _json(value: Any) -> str:
    try:
        return json.dumps(value, default=_encode, allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)


# Each option and the jobq.enqueue argument it is, with its SQL type.
_OPTIONS = {
    "run_at": "timestamptz",
    "job_key": "text",
    "job_key_mode": "text",
    "max_attempts": "integer",
    "priority": "integer",
    "queue": "text",
    "store_id": "uuid",
    "timeout": "interval",
    "backoff_base": "interval",
    "backoff_max": "interval",
    "unique_for": "interval",
    # The workflow (docs/dependencies.md): parents, and a sequence.
    "depends_on": "bigint[]",
    "on_parent_failure": "text",
    "sequence_key": "text",
    "on_sequence_failure": "text",
}


def _job_ids(ids: Any) -> list[int] | None:
    """depends_on as a list psycopg sends as an array (a tuple it would not), None when empty (no
    dependency, as in the Go client); a TypeError for anything that is not a sequence of ints."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise TypeError(f"depends_on must be a sequence of job ids, not {ids!r}")
    bad = [i for i in ids if not isinstance(i, int) or isinstance(i, bool)]
    if bad:
        raise TypeError(f"depends_on holds {bad[0]!r}, which is no job id")
    return list(ids) or None


def enqueue_with(
    conn: Conn,
    contracts: Mapping[str, Contract],
    error_class: Callable[[str], type[JobqError]],
    error_from_db: Callable[[BaseException], BaseException],
    name: str,
    payload: Mapping[str, Any],
    **options: Any,
) -> int:
    """The one implementation of enqueue_job: checks the task, scope and payload against contracts
    (raising the catalogued class jobq would raise, without a round trip), then runs
    SELECT jobq.enqueue(name, payload, option => value, ...) on conn and returns the job id."""
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise TypeError(f"enqueue_job() got unexpected options {sorted(unknown)}; they are {sorted(_OPTIONS)}")

    def refuse(code: str, detail: str) -> JobqError:
        cls = error_class(code)
        return cls(f"{code}: {detail}", hint=getattr(cls, "catalogue_hint", None))

    contract = contracts.get(name)
    if contract is None:
        raise refuse("JOB.UNKNOWN_TASK", f"task {name!r} is not declared")
    if not isinstance(payload, Mapping):
        raise refuse("JOB.PAYLOAD_NOT_OBJECT", f"the payload of {name} is a {type(payload).__name__}, not a dict")
    problem = payload_problem(contract.schema, payload)
    if problem is not None:
        raise refuse("JOB.PAYLOAD_INVALID", f"task {name}: {problem}")
    store_id = options.get("store_id")
    if contract.scope == "system" and store_id is not None:
        raise refuse("JOB.STORE_NOT_ALLOWED", f"task {name} is a system task; it got store {store_id}")
    if contract.scope == "store" and store_id is None and not _type_ok(payload.get("storeId"), "uuid"):
        raise refuse("JOB.STORE_REQUIRED", f"task {name} is store-scoped; pass store_id or a storeId in the payload")

    query = "SELECT jobq.enqueue(%s, %s::jsonb"
    params: list[Any] = [name, _json_payload(payload)]
    for option, typ in _OPTIONS.items():
        value = options.get(option)
        if option == "depends_on" and value is not None:
            value = _job_ids(value)
        if value is None:
            continue
        query += f", {option} => %s::{typ}"
        params.append(str(value) if isinstance(value, UUID) else value)
    query += ")"
    try:
        # query is made of this module's constants only.
        row = conn.execute(cast(LiteralString, query), params).fetchone()
    except psycopg.Error as err:
        typed = error_from_db(err)
        if typed is err:
            raise
        raise typed from err
    assert row is not None
    return int(row[0])


def _json_payload(payload: Mapping[str, Any]) -> str:
    try:
        return json.dumps(payload, default=_encode, allow_nan=False)
    except ValueError as err:  # NaN or an infinity: no JSON number
        raise TypeError(f"the payload is not JSON: {err}") from err


def set_tenant(conn: Conn, store_id: str | UUID) -> None:
    """Makes store_id the tenant of conn's transaction: set_config('app.current_store_id', store_id,
    true), which is SET LOCAL (it ends with the transaction)."""
    conn.execute("SELECT set_config('app.current_store_id', %s::uuid::text, true)", (str(store_id),))


@contextmanager
def with_tenant(conn: Conn, store_id: str | UUID) -> Iterator[Conn]:
    """A transaction (conn.transaction(): committed when the block ends, rolled back when it raises;
    a savepoint inside a transaction already open) whose tenant is store_id. Yields conn."""
    with conn.transaction():
        set_tenant(conn, store_id)
        yield conn
