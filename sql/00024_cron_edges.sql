-- jobq schema step 24: cron on DST days, bounded (issue 12, points 2 and 4).
--
-- Slots are instants. A slot is every instant whose wall-clock time in the schedule's zone
-- matches the fields, with two rules for the days clocks change:
--   * clocks go forward: a matching local time that does not exist runs once, at the instant it
--     has with the UTC offset of before the change (just after the gap: 02:30 -> 03:30 EDT);
--   * clocks go back: a local time that happens twice matches twice when the hour field is every
--     hour (`*`, `*/1`, `0-23`: the expression keeps its cadence in real time), and runs once, at
--     its first occurrence, when the hour field names hours (`30 1 * * *`: as Vixie cron, and as
--     the offset of before the change, like the gap rule).
-- _cron_next is the next element of that fixed set after an instant, whatever the instant (a
-- leader that resumes inside a repeated hour backfills every slot of its window).
--
-- Domains: instants are finite and within [1970-01-01 00:00 UTC, 10000-01-01 00:00 UTC); no slot is
-- searched beyond ten years after the instant nor beyond that range; cron_slots lists at most
-- 10000 slots; an expression is at most 1000 characters; a time zone is a name (letters, digits,
-- _ / + -) PostgreSQL knows, with a UTC offset within a day. Out of domain: JOB.INVALID_ARGUMENT
-- (JQ100) naming the argument, JOB.INVALID_CRON, JOB.INVALID_TIMEZONE.
--
-- The public cron functions become SECURITY DEFINER, so the pure helpers are no longer
-- executable by the runtime roles. _run_schedule and _enqueue_due_slots are safe for any stored
-- backfill_window and for a schedule whose zone the tz database no longer knows.

-- +goose Up

-- Checks that an instant is finite and within the range cron evaluates; returns it.
-- +goose StatementBegin
CREATE FUNCTION jobq._cron_instant(p_at timestamptz, p_name text)
RETURNS timestamptz
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_at IS NULL OR NOT isfinite(p_at) OR p_at < '1970-01-01 00:00:00+00'::timestamptz
       OR p_at >= '10000-01-01 00:00:00+00'::timestamptz THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('%s is %s; it must be an instant from 1970-01-01 00:00 UTC to before 10000-01-01 00:00 UTC',
                   p_name, coalesce(p_at::text, 'NULL')));
    END IF;
    RETURN p_at;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._cron_instant(timestamptz, text) IS
    'Private. Returns p_at when it is finite and in [1970-01-01, 10000-01-01) UTC, the range cron evaluates; '
    'raises JOB.INVALID_ARGUMENT naming p_name otherwise. Pure.';
REVOKE ALL ON FUNCTION jobq._cron_instant(timestamptz, text) FROM PUBLIC;

-- The first wall-clock time at or after p_from (a whole minute) that matches the fields, or NULL
-- when none comes by p_limit. Naive timestamps: no time zone, every day has 24 hours.
-- +goose StatementBegin
CREATE FUNCTION jobq._cron_local_next(p_fields jobq.cron_fields, p_from timestamp, p_limit timestamp)
RETURNS timestamp
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_t timestamp := p_from;
    v_next integer;
    v_dom_ok boolean;
    v_dow_ok boolean;
BEGIN
    -- Every turn moves v_t forward by at least a minute, and to the next month, day, hour or
    -- matching minute when the current one fails: at most a few turns per day up to p_limit.
    WHILE v_t <= p_limit LOOP
        IF NOT extract(month FROM v_t)::integer = ANY (p_fields.months) THEN
            v_t := date_trunc('month', v_t) + interval '1 month';
            CONTINUE;
        END IF;
        v_dom_ok := extract(day FROM v_t)::integer = ANY (p_fields.days);
        v_dow_ok := extract(dow FROM v_t)::integer = ANY (p_fields.dows);
        IF NOT (CASE WHEN p_fields.any_day OR p_fields.any_dow THEN v_dom_ok AND v_dow_ok ELSE v_dom_ok OR v_dow_ok END) THEN
            v_t := date_trunc('day', v_t) + interval '1 day';
            CONTINUE;
        END IF;
        IF NOT extract(hour FROM v_t)::integer = ANY (p_fields.hours) THEN
            SELECT min(h) INTO v_next FROM unnest(p_fields.hours) AS h WHERE h > extract(hour FROM v_t)::integer;
            v_t := CASE WHEN v_next IS NULL THEN date_trunc('day', v_t) + interval '1 day'
                        ELSE date_trunc('day', v_t) + make_interval(hours => v_next) END;
            CONTINUE;
        END IF;
        IF NOT extract(minute FROM v_t)::integer = ANY (p_fields.minutes) THEN
            SELECT min(m) INTO v_next FROM unnest(p_fields.minutes) AS m WHERE m > extract(minute FROM v_t)::integer;
            v_t := CASE WHEN v_next IS NULL THEN date_trunc('hour', v_t) + interval '1 hour'
                        ELSE date_trunc('hour', v_t) + make_interval(mins => v_next) END;
            CONTINUE;
        END IF;
        RETURN v_t;
    END LOOP;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._cron_local_next(jobq.cron_fields, timestamp, timestamp) IS
    'Private to jobq._cron_next. The first wall-clock time at or after p_from (a whole minute) matching the parsed '
    'fields, NULL when none by p_limit. Pure.';
REVOKE ALL ON FUNCTION jobq._cron_local_next(jobq.cron_fields, timestamp, timestamp) FROM PUBLIC;

-- Checks a time zone name; raises JOB.INVALID_TIMEZONE. Only names: POSIX rule strings (commas,
-- colons, <...>) are refused, and so is an offset beyond a day, which cron does not evaluate.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._check_timezone(p_timezone text)
RETURNS text
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_at timestamptz;
BEGIN
    IF p_timezone IS NULL OR p_timezone = '' THEN
        PERFORM jobq._raise('JOB.INVALID_TIMEZONE', 'the time zone is empty');
    END IF;
    IF p_timezone !~ '^[A-Za-z][A-Za-z0-9_/+-]{0,63}$' THEN
        PERFORM jobq._raise('JOB.INVALID_TIMEZONE',
            format('time zone %L is not a zone name (letters, digits, _ / + -, at most 64 characters)', left(p_timezone, 100)));
    END IF;
    -- Winter and summer (of either hemisphere): the offset must stay within a day.
    FOREACH v_at IN ARRAY ARRAY['2001-01-15 12:00:00+00'::timestamptz, '2001-07-15 12:00:00+00'::timestamptz] LOOP
        IF abs(extract(epoch FROM (v_at AT TIME ZONE p_timezone) - (v_at AT TIME ZONE 'UTC'))) >= 86400 THEN
            PERFORM jobq._raise('JOB.INVALID_TIMEZONE', format('time zone %L is more than a day away from UTC', p_timezone));
        END IF;
    END LOOP;
    RETURN p_timezone;
EXCEPTION WHEN invalid_parameter_value THEN
    PERFORM jobq._raise('JOB.INVALID_TIMEZONE', format('time zone %L is not recognized', p_timezone));
    RETURN NULL;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_timezone(text) IS
    'Private. Returns p_timezone when it is a zone name PostgreSQL knows (letters, digits, _ / + -, at most 64 '
    'characters; no POSIX rule string) whose UTC offset is within a day; raises JOB.INVALID_TIMEZONE.';

-- Parses a cron expression or macro; white space (tabs, newlines too) around it is ignored. A day field is * when one of its items is * or ? with no
-- step or a step of 1 however written (*/1, */01, ?/001), as robfig/cron; 1-31, 0-6 or SUN-SAT
-- are restricted fields (they only list every day), as robfig/cron and Vixie cron.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.cron_parse(expr text)
RETURNS jobq.cron_fields
LANGUAGE plpgsql
IMMUTABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- Any white space around the fields, as between them (robfig/cron too).
    v_expr text := regexp_replace(cron_parse.expr, '^\s+|\s+$', '', 'g');
    v_f text[];
    v_dows integer[];
BEGIN
    IF v_expr IS NULL OR v_expr = '' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', 'the expression is empty');
    END IF;
    IF length(v_expr) > 1000 THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('the expression has %s characters; at most 1000', length(v_expr)));
    END IF;
    v_expr := CASE lower(v_expr)
        WHEN '@yearly' THEN '0 0 1 1 *'
        WHEN '@annually' THEN '0 0 1 1 *'
        WHEN '@monthly' THEN '0 0 1 * *'
        WHEN '@weekly' THEN '0 0 * * 0'
        WHEN '@daily' THEN '0 0 * * *'
        WHEN '@midnight' THEN '0 0 * * *'
        WHEN '@hourly' THEN '0 * * * *'
        ELSE v_expr
    END;
    IF v_expr LIKE '@%' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s is not a known macro (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)', left(v_expr, 100)));
    END IF;
    v_f := regexp_split_to_array(v_expr, '\s+');
    IF cardinality(v_f) <> 5 THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%L has %s fields; cron has 5: minute hour day-of-month month day-of-week',
                                                    left(cron_parse.expr, 100), cardinality(v_f)));
    END IF;
    -- * and a/n cover 0-6; 7 is accepted as a value (Sunday, as 0).
    v_dows := jobq._cron_field(v_f[5], 'day-of-week', 0, 6, ARRAY['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']);
    RETURN ROW(
        jobq._cron_field(v_f[1], 'minute', 0, 59, NULL),
        jobq._cron_field(v_f[2], 'hour', 0, 23, NULL),
        jobq._cron_field(v_f[3], 'day-of-month', 1, 31, NULL),
        jobq._cron_field(v_f[4], 'month', 1, 12, ARRAY['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']),
        ARRAY(SELECT DISTINCT CASE WHEN d = 7 THEN 0 ELSE d END FROM unnest(v_dows) AS d ORDER BY 1),
        EXISTS (SELECT 1 FROM unnest(string_to_array(v_f[3], ',')) AS i WHERE i ~ '^[*?](/0*1)?$'),
        EXISTS (SELECT 1 FROM unnest(string_to_array(v_f[5], ',')) AS i WHERE i ~ '^[*?](/0*1)?$')
    )::jobq.cron_fields;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.cron_parse(text) IS
    'Parses a 5-field cron expression or macro (at most 1000 characters) into jobq.cron_fields; a day field is * when '
    'an item is * or ? with no step or a step of 1 (*/01 too). Pure; SECURITY DEFINER so that callers need no right on '
    'its helpers. Callers: anyone with EXECUTE (apps, workers, operators), jobq.schedule. Errors: JOB.INVALID_CRON '
    'naming the field.';

-- The first slot strictly after p_after, for parsed fields p_fields in time zone p_timezone;
-- NULL when none comes within ten years (e.g. 0 0 30 2 *) or before 10000-01-01 UTC.
--
-- The walk: from instant v_u with UTC offset v_off, the next matching wall-clock time v_l would
-- be the instant v_c = v_l - v_off if the offset held until then. If the offset is the same two
-- days ahead (or at v_c when nearer), it does hold (the tz database never changes offset twice
-- within two days; the tz database's closest changes since 1970 are a week apart): v_c is the
-- answer, or, far away, the walk jumps to two days before it. If not, the change is found to the
-- microsecond; a matching local time in a gap it opens is remembered (it runs at v_c), and the
-- walk goes on from the change with the new offset. A walk that starts just after a gap also
-- looks at the gap's local times, whose slots lie just after it.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._cron_next(p_fields jobq.cron_fields, p_after timestamptz, p_timezone text)
RETURNS timestamptz
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_every_hour constant boolean := cardinality(p_fields.hours) = 24;
    v_end constant timestamptz := least(
        ((jobq._cron_instant(p_after, 'the instant') AT TIME ZONE 'UTC') + interval '10 years') AT TIME ZONE 'UTC',
        '10000-01-01 00:00:00+00'::timestamptz);
    -- Local times beyond this are instants beyond v_end (offsets are within a day).
    v_local_limit constant timestamp := (v_end AT TIME ZONE 'UTC') + interval '26 hours';
    v_u timestamptz := p_after;   -- the walk is here
    v_incl boolean := false;      -- whether v_u itself may be the answer
    v_best timestamptz;           -- the slot of a matching local time in a gap, once found
    v_local timestamp;
    v_off interval;
    v_l timestamp;
    v_c timestamptz;
    v_probe timestamptz;
    v_prev_off interval;
    v_lo timestamptz;
    v_hi timestamptz;
    v_span bigint;
    v_mid timestamptz;
BEGIN
    -- Bounded: every turn returns, or moves v_u forward past a change of offset, a repeated
    -- local time, or to two days before the next match; a few dozen turns at most in practice.
    FOR v_turn IN 1..10000 LOOP
        IF v_best IS NOT NULL AND v_u >= v_best THEN
            EXIT;
        END IF;
        v_local := v_u AT TIME ZONE p_timezone;
        v_off := v_local - (v_u AT TIME ZONE 'UTC');
        -- Just after clocks went forward, the slots of matching local times in the gap (each at
        -- its time with the offset of before, so within the gap's length after the change) may
        -- still be ahead: the first such local time after v_u read with that offset.
        v_prev_off := ((v_u - interval '48 hours') AT TIME ZONE p_timezone) - ((v_u - interval '48 hours') AT TIME ZONE 'UTC');
        IF v_prev_off < v_off THEN
            v_l := (v_u AT TIME ZONE 'UTC') + v_prev_off;
            v_l := jobq._cron_local_next(p_fields,
                CASE WHEN v_incl AND v_l = date_trunc('minute', v_l) THEN v_l ELSE date_trunc('minute', v_l) + interval '1 minute' END,
                v_local);
            -- A local time that does not exist reads (in PostgreSQL) with the offset of before.
            IF v_l IS NOT NULL AND ((v_l AT TIME ZONE p_timezone) AT TIME ZONE p_timezone) <> v_l THEN
                v_best := least(v_best, v_l AT TIME ZONE p_timezone);
            END IF;
        END IF;
        v_l := jobq._cron_local_next(p_fields,
            CASE WHEN v_incl AND v_local = date_trunc('minute', v_local) THEN v_local
                 ELSE date_trunc('minute', v_local) + interval '1 minute' END,
            v_local_limit);
        EXIT WHEN v_l IS NULL;
        v_c := (v_l - v_off) AT TIME ZONE 'UTC';
        -- Absolute hours, never days: timestamptz + '1 day' would follow the session's time zone.
        v_probe := least(v_c, v_u + interval '48 hours');
        IF (v_probe AT TIME ZONE p_timezone) - (v_probe AT TIME ZONE 'UTC') = v_off THEN
            IF v_probe < v_c THEN
                -- No match before v_c in this offset, and no change of offset within two days of
                -- v_u: nothing matches before two days ahead of v_c.
                v_u := v_c - interval '48 hours';
                v_incl := true;
                CONTINUE;
            END IF;
            -- v_c is an instant with wall-clock time v_l. When clocks went back shortly before it
            -- and v_l happened already then, v_c is its second pass: no slot when the hour is fixed.
            IF NOT v_every_hour THEN
                v_prev_off := ((v_c - interval '48 hours') AT TIME ZONE p_timezone) - ((v_c - interval '48 hours') AT TIME ZONE 'UTC');
                IF v_prev_off > v_off AND (((v_l - v_prev_off) AT TIME ZONE 'UTC') AT TIME ZONE p_timezone) = v_l THEN
                    v_u := v_c;
                    v_incl := false;
                    CONTINUE;
                END IF;
            END IF;
            v_best := least(v_best, v_c);
            EXIT;
        END IF;

        -- The offset changes in (v_u, v_probe]: find the first instant of the new offset.
        v_lo := v_u;
        v_hi := v_probe;
        LOOP
            v_span := ((extract(epoch FROM v_hi) - extract(epoch FROM v_lo)) * 1000000)::bigint;
            EXIT WHEN v_span <= 1;
            v_mid := v_lo + (v_span / 2) * interval '1 microsecond';
            IF (v_mid AT TIME ZONE p_timezone) - (v_mid AT TIME ZONE 'UTC') = v_off THEN
                v_lo := v_mid;
            ELSE
                v_hi := v_mid;
            END IF;
        END LOOP;
        -- Clocks go forward at v_hi: local times [v_hi + v_off, v_hi + new offset) do not exist.
        -- v_l (at or after the gap's start) is the first matching one if it lies in the gap; it
        -- runs at v_c, with the offset of before the change.
        IF v_l < (v_hi AT TIME ZONE p_timezone) THEN
            v_best := least(v_best, v_c);
        END IF;
        v_u := v_hi;
        v_incl := true;
    END LOOP;
    IF v_best IS NULL OR v_best > v_end OR v_best >= '10000-01-01 00:00:00+00'::timestamptz THEN
        RETURN NULL;
    END IF;
    RETURN v_best;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._cron_next(jobq.cron_fields, timestamptz, text) IS
    'Private. The first slot of parsed cron fields strictly after p_after in time zone p_timezone (every instant whose '
    'wall-clock time matches; a local time in a DST gap runs once just after it; a repeated local time runs twice when '
    'the hour field is every hour, else once at its first occurrence); NULL when none within ten years or before '
    '10000-01-01 UTC. Pure. Errors: JOB.INVALID_ARGUMENT when p_after is not finite or outside [1970-01-01, 10000-01-01).';

-- The next slot of a cron expression after an instant, in a time zone (default UTC).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.cron_next(expr text, after timestamptz, timezone text DEFAULT 'UTC')
RETURNS timestamptz
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._cron_next(jobq.cron_parse(cron_next.expr), jobq._cron_instant(cron_next.after, 'after'),
                           jobq._check_timezone(cron_next.timezone))
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.cron_next(text, timestamptz, text) IS
    'The first slot of cron expression expr strictly after instant after, with wall-clock fields read in time zone '
    'timezone (default UTC); NULL when it never fires within ten years (or before 10000-01-01 UTC). after must be '
    'finite, from 1970-01-01 to before 10000-01-01 UTC. Pure apart from the tz database; SECURITY DEFINER so that '
    'callers need no right on its helpers. Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.INVALID_ARGUMENT (after).';

-- Every slot of expr in (from_at, to_at], at most max_slots (1..10000) of them: for previews and tests.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.cron_slots(expr text, from_at timestamptz, to_at timestamptz, timezone text DEFAULT 'UTC', max_slots integer DEFAULT 1000)
RETURNS SETOF timestamptz
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_fields constant jobq.cron_fields := jobq.cron_parse(cron_slots.expr);
    v_zone constant text := jobq._check_timezone(cron_slots.timezone);
    v_at timestamptz := jobq._cron_instant(cron_slots.from_at, 'from_at');
    v_to constant timestamptz := jobq._cron_instant(cron_slots.to_at, 'to_at');
    v_n integer := 0;
BEGIN
    IF cron_slots.max_slots IS NULL OR cron_slots.max_slots NOT BETWEEN 1 AND 10000 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('max_slots is %s; it must be 1 to 10000', coalesce(cron_slots.max_slots::text, 'NULL')));
    END IF;
    WHILE v_n < cron_slots.max_slots LOOP
        v_at := jobq._cron_next(v_fields, v_at, v_zone);
        EXIT WHEN v_at IS NULL OR v_at > v_to;
        v_n := v_n + 1;
        RETURN NEXT v_at;
    END LOOP;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.cron_slots(text, timestamptz, timestamptz, text, integer) IS
    'Every slot of cron expression expr in (from_at, to_at] in time zone timezone, at most max_slots (1 to 10000, '
    'default 1000). from_at and to_at must be finite, from 1970-01-01 to before 10000-01-01 UTC. For previews and '
    'tests; SECURITY DEFINER so that callers need no right on its helpers. Errors: JOB.INVALID_CRON, '
    'JOB.INVALID_TIMEZONE, JOB.INVALID_ARGUMENT (from_at, to_at, max_slots).';

-- Handles the slots of one schedule from its next_slot_at up to p_now (at most p_max_slots),
-- applying backfill and concurrency policy. The caller holds the schedule's row lock. The slots are
-- instants (jobq._cron_next): a window that begins or ends inside a repeated or skipped local
-- hour holds every slot of that stretch of real time.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._run_schedule(p_s jobq.schedules, p_now timestamptz, p_max_slots integer)
RETURNS TABLE (slot_at timestamptz, outcome text, reason text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- Safe for any stored window: never before the range cron evaluates (nor an overflow).
    v_window_start constant timestamptz := greatest(p_now - least(p_s.backfill_window, interval '1000 years'),
                                                    '1970-01-01 00:00:00.000001+00'::timestamptz);
    v_slot timestamptz := p_s.next_slot_at;
    v_slots timestamptz[] := '{}'::timestamptz[];
    v_first_in_window timestamptz;
    v_previous bigint := p_s.last_job_id;
    v_job bigint;
    v_at timestamptz;
    v_last timestamptz := p_s.last_slot_at;
    v_iso text;
BEGIN
    -- A late stretch (downtime): one row, naming its first slot; none of it runs.
    IF v_slot < v_window_start THEN
        v_first_in_window := jobq._cron_next(p_s.fields, v_window_start - interval '1 microsecond', p_s.timezone);
        INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason, detail)
        VALUES (p_s.name, v_slot, 'skipped', 'late',
                jsonb_build_object('late_before', v_window_start, 'resumes_at', v_first_in_window,
                                   'backfill_window', p_s.backfill_window::text))
        ON CONFLICT DO NOTHING;
        slot_at := v_slot; outcome := 'skipped'; reason := 'late'; job_id := NULL;
        RETURN NEXT;
        v_last := v_slot;
        v_slot := v_first_in_window;
    END IF;

    WHILE v_slot IS NOT NULL AND v_slot <= p_now AND cardinality(v_slots) < p_max_slots LOOP
        v_slots := v_slots || v_slot;
        v_slot := jobq._cron_next(p_s.fields, v_slot, p_s.timezone);
    END LOOP;

    FOREACH v_at IN ARRAY v_slots LOOP
        v_last := v_at;
        IF p_s.backfill = 'latest' AND v_at < v_slots[cardinality(v_slots)] THEN
            INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason)
            VALUES (p_s.name, v_at, 'skipped', 'superseded') ON CONFLICT DO NOTHING;
            slot_at := v_at; outcome := 'skipped'; reason := 'superseded'; job_id := NULL;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF p_s.concurrency_policy <> 'allow' AND v_previous IS NOT NULL
           AND EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.id = v_previous) THEN
            IF p_s.concurrency_policy = 'forbid' THEN
                INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason, detail)
                VALUES (p_s.name, v_at, 'skipped', 'forbid', jsonb_build_object('running_job_id', v_previous))
                ON CONFLICT DO NOTHING;
                slot_at := v_at; outcome := 'skipped'; reason := 'forbid'; job_id := NULL;
                RETURN NEXT;
                CONTINUE;
            END IF;
            -- replace: the previous run is canceled; its lease, if running, stops working.
            WITH gone AS (
                DELETE FROM jobq.jobs AS j WHERE j.id = v_previous RETURNING j AS job
            )
            INSERT INTO jobq.job_history
            SELECT h.* FROM gone CROSS JOIN LATERAL jobq._to_history(gone.job, 'canceled', 'replaced', NULL, NULL) AS h;
        END IF;

        -- The slot is claimed first: the primary key decides, so a slot never gets a second job.
        INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome)
        VALUES (p_s.name, v_at, 'enqueued') ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            CONTINUE;
        END IF;
        v_iso := to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
        SELECT e.job_id INTO v_job
        FROM jobq._enqueue(ARRAY[ROW(
            p_s.task,
            CASE WHEN p_s.slot_key IS NULL THEN p_s.payload ELSE p_s.payload || jsonb_build_object(p_s.slot_key, v_iso) END,
            p_s.queue,
            v_at + p_s.jitter * ((hashtext(p_s.name || v_iso)::bigint + 2147483648) / 4294967295.0),
            p_s.priority, p_s.max_attempts,
            'schedule:' || p_s.name || ':' || v_iso, 'unsafe_dedupe', NULL, NULL, NULL, NULL)::jobq.job_spec], false) AS e;
        UPDATE jobq.schedule_runs AS r SET job_id = v_job WHERE r.schedule = p_s.name AND r.slot_at = v_at;
        v_previous := v_job;
        slot_at := v_at; outcome := 'enqueued'; reason := NULL; job_id := v_job;
        RETURN NEXT;
    END LOOP;

    UPDATE jobq.schedules AS s
    SET next_slot_at = v_slot, last_slot_at = v_last, last_job_id = v_previous, updated_at = now()
    WHERE s.name = p_s.name;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._run_schedule(jobq.schedules, timestamptz, integer) IS
    'Private. Handles the due slots of one schedule (caller holds its row lock): late stretch skipped, backfill, '
    'concurrency policy, one job per slot with job key schedule:<name>:<slot>; every slot of the backfill window runs, '
    'across DST changes too; any stored backfill_window is safe. Returns one row per slot handled.';

-- Enqueues the due slots of every schedule at time p_now; schedules another caller is handling
-- are skipped (SKIP LOCKED), so many callers at once never double a slot. A schedule whose jobs
-- the engine refuses (its task changed under it) does not stop the others: its due slots are
-- recorded as skipped (reason error, with the message) and it moves on to its next slot.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_due_slots(p_now timestamptz, p_max_schedules integer DEFAULT 100)
RETURNS TABLE (schedule text, slot_at timestamptz, outcome text, reason text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_s jobq.schedules;
    v_message text;
    v_next timestamptz;
BEGIN
    FOR v_s IN
        SELECT * FROM jobq.schedules s
        WHERE s.enabled AND s.next_slot_at <= p_now
        ORDER BY s.next_slot_at
        LIMIT p_max_schedules
        FOR UPDATE SKIP LOCKED
    LOOP
        BEGIN
            RETURN QUERY SELECT v_s.name, r.slot_at, r.outcome, r.reason, r.job_id FROM jobq._run_schedule(v_s, p_now, 1000) AS r;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS v_message = MESSAGE_TEXT;
            INSERT INTO jobq.schedule_runs AS r (schedule, slot_at, outcome, reason, detail)
            VALUES (v_s.name, v_s.next_slot_at, 'skipped', 'error', jsonb_build_object('error', v_message))
            ON CONFLICT DO NOTHING;
            -- The next slot after now; a schedule whose zone the tz database no longer knows stops
            -- (next_slot_at NULL, until jobq.schedule declares it again) instead of stopping maintain.
            BEGIN
                v_next := jobq._cron_next(v_s.fields, p_now, v_s.timezone);
            EXCEPTION WHEN OTHERS THEN
                v_next := NULL;
            END;
            UPDATE jobq.schedules AS s SET next_slot_at = v_next, updated_at = now() WHERE s.name = v_s.name;
            schedule := v_s.name; slot_at := v_s.next_slot_at; outcome := 'skipped'; reason := 'error'; job_id := NULL;
            RETURN NEXT;
        END;
    END LOOP;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._enqueue_due_slots(timestamptz, integer) IS
    'Private to jobq.maintain. Handles the due slots of at most p_max_schedules schedules at time p_now (SKIP LOCKED); '
    'a schedule whose job the engine refuses is skipped (reason error) without stopping the others; one whose next '
    'slot cannot be computed (its zone unknown) stops (next_slot_at NULL) until declared again.';

-- The public cron functions now run as their owner: callers keep EXECUTE on them, not on the helpers.
REVOKE EXECUTE ON FUNCTION jobq._cron_field(text, text, integer, integer, text[]), jobq._cron_value(text, text, integer, integer, text[]),
    jobq._cron_next(jobq.cron_fields, timestamptz, text), jobq._check_timezone(text)
FROM worker_runtime, jobq_app, jobq_operator;

-- Schedules parsed before */01 counted as * in a day field take the fields cron_parse gives now.
UPDATE jobq.schedules AS s
SET fields = jobq.cron_parse(s.cron), updated_at = now()
WHERE length(btrim(s.cron)) <= 1000 AND s.fields IS DISTINCT FROM jobq.cron_parse(s.cron);

-- Schedules whose next slot the previous evaluator put too late (it lost the first pass of a
-- repeated hour) resume at the slot the new one finds after their last slot.
UPDATE jobq.schedules AS s
SET next_slot_at = jobq._cron_next(s.fields, s.last_slot_at, s.timezone), updated_at = now()
WHERE s.last_slot_at >= '1970-01-01 00:00:00+00' AND s.last_slot_at < '9990-01-01 00:00:00+00'
  AND s.next_slot_at > jobq._cron_next(s.fields, s.last_slot_at, s.timezone);

-- +goose Down
GRANT EXECUTE ON FUNCTION jobq._cron_field(text, text, integer, integer, text[]), jobq._cron_value(text, text, integer, integer, text[]),
    jobq._cron_next(jobq.cron_fields, timestamptz, text), jobq._check_timezone(text)
TO worker_runtime, jobq_app, jobq_operator;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.cron_slots(expr text, from_at timestamptz, to_at timestamptz, timezone text DEFAULT 'UTC', max_slots integer DEFAULT 1000)
RETURNS SETOF timestamptz
LANGUAGE plpgsql
STABLE
SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_fields constant jobq.cron_fields := jobq.cron_parse(cron_slots.expr);
    v_zone constant text := jobq._check_timezone(cron_slots.timezone);
    v_at timestamptz := cron_slots.from_at;
    v_n integer := 0;
BEGIN
    LOOP
        v_at := jobq._cron_next(v_fields, v_at, v_zone);
        EXIT WHEN v_at IS NULL OR v_at > cron_slots.to_at OR v_n >= cron_slots.max_slots;
        v_n := v_n + 1;
        RETURN NEXT v_at;
    END LOOP;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.cron_slots(text, timestamptz, timestamptz, text, integer) IS
    'Every slot of cron expression expr in (from_at, to_at] in time zone timezone, at most max_slots. '
    'For previews and tests. Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.cron_next(expr text, after timestamptz, timezone text DEFAULT 'UTC')
RETURNS timestamptz
LANGUAGE sql
STABLE
SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._cron_next(jobq.cron_parse(cron_next.expr), cron_next.after, jobq._check_timezone(cron_next.timezone))
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.cron_next(text, timestamptz, text) IS
    'The first slot of cron expression expr strictly after instant after, with wall-clock fields read in time zone '
    'timezone (default UTC); NULL when it never fires within ten years. Pure apart from the tz database. '
    'Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._cron_next(p_fields jobq.cron_fields, p_after timestamptz, p_timezone text)
RETURNS timestamptz
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_t timestamp := date_trunc('minute', p_after AT TIME ZONE p_timezone) + interval '1 minute';
    v_limit constant timestamp := (p_after AT TIME ZONE p_timezone) + interval '10 years';
    v_next integer;
    v_dom_ok boolean;
    v_dow_ok boolean;
    v_slot timestamptz;
BEGIN
    WHILE v_t <= v_limit LOOP
        IF NOT extract(month FROM v_t)::integer = ANY (p_fields.months) THEN
            v_t := date_trunc('month', v_t) + interval '1 month';
            CONTINUE;
        END IF;
        v_dom_ok := extract(day FROM v_t)::integer = ANY (p_fields.days);
        v_dow_ok := extract(dow FROM v_t)::integer = ANY (p_fields.dows);
        IF NOT (CASE WHEN p_fields.any_day OR p_fields.any_dow THEN v_dom_ok AND v_dow_ok ELSE v_dom_ok OR v_dow_ok END) THEN
            v_t := date_trunc('day', v_t) + interval '1 day';
            CONTINUE;
        END IF;
        IF NOT extract(hour FROM v_t)::integer = ANY (p_fields.hours) THEN
            SELECT min(h) INTO v_next FROM unnest(p_fields.hours) AS h WHERE h > extract(hour FROM v_t)::integer;
            v_t := CASE WHEN v_next IS NULL THEN date_trunc('day', v_t) + interval '1 day'
                        ELSE date_trunc('day', v_t) + make_interval(hours => v_next) END;
            CONTINUE;
        END IF;
        IF NOT extract(minute FROM v_t)::integer = ANY (p_fields.minutes) THEN
            SELECT min(m) INTO v_next FROM unnest(p_fields.minutes) AS m WHERE m > extract(minute FROM v_t)::integer;
            v_t := CASE WHEN v_next IS NULL THEN date_trunc('hour', v_t) + interval '1 hour'
                        ELSE date_trunc('hour', v_t) + make_interval(mins => v_next) END;
            CONTINUE;
        END IF;
        v_slot := v_t AT TIME ZONE p_timezone;
        -- Around a DST change a later wall-clock time can map to an earlier instant: slots must
        -- strictly increase.
        IF v_slot > p_after THEN
            RETURN v_slot;
        END IF;
        v_t := v_t + interval '1 minute';
    END LOOP;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._cron_next(jobq.cron_fields, timestamptz, text) IS
    'Private. The first slot of parsed cron fields strictly after p_after in time zone p_timezone, NULL when none '
    'within ten years.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq.cron_parse(expr text)
RETURNS jobq.cron_fields
LANGUAGE plpgsql
IMMUTABLE
SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_expr text := btrim(cron_parse.expr);
    v_f text[];
    v_dows integer[];
BEGIN
    IF v_expr IS NULL OR v_expr = '' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', 'the expression is empty');
    END IF;
    v_expr := CASE lower(v_expr)
        WHEN '@yearly' THEN '0 0 1 1 *'
        WHEN '@annually' THEN '0 0 1 1 *'
        WHEN '@monthly' THEN '0 0 1 * *'
        WHEN '@weekly' THEN '0 0 * * 0'
        WHEN '@daily' THEN '0 0 * * *'
        WHEN '@midnight' THEN '0 0 * * *'
        WHEN '@hourly' THEN '0 * * * *'
        ELSE v_expr
    END;
    IF v_expr LIKE '@%' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s is not a known macro (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)', v_expr));
    END IF;
    v_f := regexp_split_to_array(v_expr, '\s+');
    IF cardinality(v_f) <> 5 THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%L has %s fields; cron has 5: minute hour day-of-month month day-of-week',
                                                    cron_parse.expr, cardinality(v_f)));
    END IF;
    -- * and a/n cover 0-6; 7 is accepted as a value (Sunday, as 0).
    v_dows := jobq._cron_field(v_f[5], 'day-of-week', 0, 6, ARRAY['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']);
    RETURN ROW(
        jobq._cron_field(v_f[1], 'minute', 0, 59, NULL),
        jobq._cron_field(v_f[2], 'hour', 0, 23, NULL),
        jobq._cron_field(v_f[3], 'day-of-month', 1, 31, NULL),
        jobq._cron_field(v_f[4], 'month', 1, 12, ARRAY['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']),
        ARRAY(SELECT DISTINCT CASE WHEN d = 7 THEN 0 ELSE d END FROM unnest(v_dows) AS d ORDER BY 1),
        EXISTS (SELECT 1 FROM unnest(string_to_array(v_f[3], ',')) AS i WHERE i ~ '^[*?](/1)?$'),
        EXISTS (SELECT 1 FROM unnest(string_to_array(v_f[5], ',')) AS i WHERE i ~ '^[*?](/1)?$')
    )::jobq.cron_fields;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.cron_parse(text) IS
    'Parses a 5-field cron expression or macro into jobq.cron_fields. Pure. Errors: JOB.INVALID_CRON naming the field.';

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._check_timezone(p_timezone text)
RETURNS text
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_timezone IS NULL OR p_timezone = '' THEN
        PERFORM jobq._raise('JOB.INVALID_TIMEZONE', 'the time zone is empty');
    END IF;
    PERFORM now() AT TIME ZONE p_timezone;
    RETURN p_timezone;
EXCEPTION WHEN invalid_parameter_value THEN
    PERFORM jobq._raise('JOB.INVALID_TIMEZONE', format('time zone %L is not recognized', p_timezone));
    RETURN NULL;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._check_timezone(text) IS 'Private. Returns p_timezone when PostgreSQL knows it; raises JOB.INVALID_TIMEZONE.';

-- Handles the slots of one schedule from its next_slot_at up to p_now (at most p_max_slots),
-- applying backfill and concurrency policy. The caller holds the schedule's row lock.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._run_schedule(p_s jobq.schedules, p_now timestamptz, p_max_slots integer)
RETURNS TABLE (slot_at timestamptz, outcome text, reason text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_window_start constant timestamptz := p_now - p_s.backfill_window;
    v_slot timestamptz := p_s.next_slot_at;
    v_slots timestamptz[] := '{}'::timestamptz[];
    v_first_in_window timestamptz;
    v_previous bigint := p_s.last_job_id;
    v_job bigint;
    v_at timestamptz;
    v_last timestamptz := p_s.last_slot_at;
    v_iso text;
BEGIN
    -- A late stretch (downtime): one row, naming its first slot; none of it runs.
    IF v_slot < v_window_start THEN
        v_first_in_window := jobq._cron_next(p_s.fields, v_window_start - interval '1 microsecond', p_s.timezone);
        INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason, detail)
        VALUES (p_s.name, v_slot, 'skipped', 'late',
                jsonb_build_object('late_before', v_window_start, 'resumes_at', v_first_in_window,
                                   'backfill_window', p_s.backfill_window::text))
        ON CONFLICT DO NOTHING;
        slot_at := v_slot; outcome := 'skipped'; reason := 'late'; job_id := NULL;
        RETURN NEXT;
        v_last := v_slot;
        v_slot := v_first_in_window;
    END IF;

    WHILE v_slot IS NOT NULL AND v_slot <= p_now AND cardinality(v_slots) < p_max_slots LOOP
        v_slots := v_slots || v_slot;
        v_slot := jobq._cron_next(p_s.fields, v_slot, p_s.timezone);
    END LOOP;

    FOREACH v_at IN ARRAY v_slots LOOP
        v_last := v_at;
        IF p_s.backfill = 'latest' AND v_at < v_slots[cardinality(v_slots)] THEN
            INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason)
            VALUES (p_s.name, v_at, 'skipped', 'superseded') ON CONFLICT DO NOTHING;
            slot_at := v_at; outcome := 'skipped'; reason := 'superseded'; job_id := NULL;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF p_s.concurrency_policy <> 'allow' AND v_previous IS NOT NULL
           AND EXISTS (SELECT 1 FROM jobq.jobs j WHERE j.id = v_previous) THEN
            IF p_s.concurrency_policy = 'forbid' THEN
                INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason, detail)
                VALUES (p_s.name, v_at, 'skipped', 'forbid', jsonb_build_object('running_job_id', v_previous))
                ON CONFLICT DO NOTHING;
                slot_at := v_at; outcome := 'skipped'; reason := 'forbid'; job_id := NULL;
                RETURN NEXT;
                CONTINUE;
            END IF;
            -- replace: the previous run is canceled; its lease, if running, stops working.
            WITH gone AS (
                DELETE FROM jobq.jobs AS j WHERE j.id = v_previous RETURNING j AS job
            )
            INSERT INTO jobq.job_history
            SELECT h.* FROM gone CROSS JOIN LATERAL jobq._to_history(gone.job, 'canceled', 'replaced', NULL, NULL) AS h;
        END IF;

        -- The slot is claimed first: the primary key decides, so a slot never gets a second job.
        INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome)
        VALUES (p_s.name, v_at, 'enqueued') ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            CONTINUE;
        END IF;
        v_iso := to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
        SELECT e.job_id INTO v_job
        FROM jobq._enqueue(ARRAY[ROW(
            p_s.task,
            CASE WHEN p_s.slot_key IS NULL THEN p_s.payload ELSE p_s.payload || jsonb_build_object(p_s.slot_key, v_iso) END,
            p_s.queue,
            v_at + p_s.jitter * ((hashtext(p_s.name || v_iso)::bigint + 2147483648) / 4294967295.0),
            p_s.priority, p_s.max_attempts,
            'schedule:' || p_s.name || ':' || v_iso, 'unsafe_dedupe', NULL, NULL, NULL, NULL)::jobq.job_spec], false) AS e;
        UPDATE jobq.schedule_runs AS r SET job_id = v_job WHERE r.schedule = p_s.name AND r.slot_at = v_at;
        v_previous := v_job;
        slot_at := v_at; outcome := 'enqueued'; reason := NULL; job_id := v_job;
        RETURN NEXT;
    END LOOP;

    UPDATE jobq.schedules AS s
    SET next_slot_at = v_slot, last_slot_at = v_last, last_job_id = v_previous, updated_at = now()
    WHERE s.name = p_s.name;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._run_schedule(jobq.schedules, timestamptz, integer) IS
    'Private. Handles the due slots of one schedule (caller holds its row lock): late stretch skipped, backfill, '
    'concurrency policy, one job per slot with job key schedule:<name>:<slot>. Returns one row per slot handled.';

-- Enqueues the due slots of every schedule at time p_now; schedules another caller is handling
-- are skipped (SKIP LOCKED), so many callers at once never double a slot. A schedule whose jobs
-- the engine refuses (its task changed under it) does not stop the others: its due slots are
-- recorded as skipped (reason error, with the message) and it moves on to its next slot.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_due_slots(p_now timestamptz, p_max_schedules integer DEFAULT 100)
RETURNS TABLE (schedule text, slot_at timestamptz, outcome text, reason text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_s jobq.schedules;
    v_message text;
BEGIN
    FOR v_s IN
        SELECT * FROM jobq.schedules s
        WHERE s.enabled AND s.next_slot_at <= p_now
        ORDER BY s.next_slot_at
        LIMIT p_max_schedules
        FOR UPDATE SKIP LOCKED
    LOOP
        BEGIN
            RETURN QUERY SELECT v_s.name, r.slot_at, r.outcome, r.reason, r.job_id FROM jobq._run_schedule(v_s, p_now, 1000) AS r;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS v_message = MESSAGE_TEXT;
            INSERT INTO jobq.schedule_runs AS r (schedule, slot_at, outcome, reason, detail)
            VALUES (v_s.name, v_s.next_slot_at, 'skipped', 'error', jsonb_build_object('error', v_message))
            ON CONFLICT DO NOTHING;
            UPDATE jobq.schedules AS s
            SET next_slot_at = jobq._cron_next(v_s.fields, p_now, v_s.timezone), updated_at = now()
            WHERE s.name = v_s.name;
            schedule := v_s.name; slot_at := v_s.next_slot_at; outcome := 'skipped'; reason := 'error'; job_id := NULL;
            RETURN NEXT;
        END;
    END LOOP;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._enqueue_due_slots(timestamptz, integer) IS
    'Private to jobq.maintain. Handles the due slots of at most p_max_schedules schedules at time p_now (SKIP LOCKED); '
    'a schedule whose job the engine refuses is skipped (reason error) without stopping the others.';

DROP FUNCTION jobq._cron_local_next(jobq.cron_fields, timestamp, timestamp);
DROP FUNCTION jobq._cron_instant(timestamptz, text);
