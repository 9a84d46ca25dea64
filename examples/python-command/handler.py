#!/usr/bin/env python3
"""A jobq command handler in Python: sends the welcome email of task send-welcome-email.

jobq worker runs this program once per job (docs/handlers.md has the whole contract):
  - the payload arrives as JSON on standard input;
  - the job is described by JOBQ_JOB_ID, JOBQ_TASK, JOBQ_ATTEMPT, JOBQ_MAX_ATTEMPTS,
    JOBQ_DEADLINE, ... in the environment;
  - the exit status says what happened:
      0   done: the job succeeded
      65  fail for good (EX_DATAERR): retrying cannot help; the job is dead at once
      75  snooze (EX_TEMPFAIL): run it again later without using an attempt; the delay
          (seconds, or a duration such as "90s") is written to the file $JOBQ_SNOOZE_FILE
      any other status (an uncaught exception exits 1): the attempt failed; jobq retries it
          with backoff until max_attempts
  - what it prints (stdout and stderr, the last 4 KiB by default) is kept with a failed attempt.

The mail server here is a stand-in that writes each message into the folder $OUTBOX. Like a real
one, it sometimes says "not now": it greylists the first message to each address of the domains
listed in $GREYLIST ("451 try again in 2 seconds"), which the handler turns into a snooze. And for
the demo, the connection to it drops on the first attempt for the domains listed in $FLAKY, which
the handler reports as a failed attempt, retried.
"""

import hashlib
import json
import os
import sys

EXIT_PERMANENT = 65  # EX_DATAERR
EXIT_SNOOZE = 75     # EX_TEMPFAIL


class Permanent(Exception):
    """Retrying will not help."""


class Snooze(Exception):
    """Not now: run the job again after `seconds`, without using an attempt."""

    def __init__(self, seconds):
        super().__init__(f"snooze {seconds}s")
        self.seconds = seconds


class TemporaryFailure(Exception):
    """This attempt failed; another may succeed."""


class Greylisted(Exception):
    """The mail server asks to be tried again after `seconds`."""

    def __init__(self, seconds):
        super().__init__(f"451 4.7.1 greylisted, try again in {seconds} seconds")
        self.seconds = seconds


def listed(variable, domain):
    return domain in [d for d in os.environ.get(variable, "").split(",") if d]


def deliver(address, message):
    """The stand-in mail server: drops the message in $OUTBOX, or says why not."""
    domain = address.rsplit("@", 1)[1]
    if listed("FLAKY", domain) and os.environ["JOBQ_ATTEMPT"] == "1":
        raise TemporaryFailure(f"connection to the mail server of {domain} reset")
    outbox = os.environ["OUTBOX"]
    if listed("GREYLIST", domain):
        seen = os.path.join(outbox, "greylisted-" + hashlib.sha256(address.encode()).hexdigest())
        if not os.path.exists(seen):  # a first message to this address: greylisted
            open(seen, "w").close()
            raise Greylisted(2)
    with open(os.path.join(outbox, os.environ["JOBQ_JOB_ID"] + ".eml"), "w", encoding="utf-8") as f:
        f.write(message)


def send_welcome_email(payload):
    email = payload.get("email", "")
    if "@" not in email:
        raise Permanent(f"{email!r} is not an email address")
    try:
        deliver(email, f"To: {email}\nSubject: Welcome!\n\nHello {payload.get('name', 'there')}!\n")
    except Greylisted as e:
        raise Snooze(e.seconds) from e  # not an error: the server asked for later
    print(f"job {os.environ['JOBQ_JOB_ID']}: welcome email sent to {email}")


def main():
    payload = json.load(sys.stdin)
    try:
        send_welcome_email(payload)
    except Permanent as e:
        print(f"permanent failure: {e}", file=sys.stderr)
        return EXIT_PERMANENT
    except Snooze as e:
        with open(os.environ["JOBQ_SNOOZE_FILE"], "w", encoding="utf-8") as f:
            f.write(str(e.seconds))
        print(f"snoozed for {e.seconds}s", file=sys.stderr)
        return EXIT_SNOOZE
    except TemporaryFailure as e:
        print(f"temporary failure: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
