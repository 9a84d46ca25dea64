-- jobq engine, cron. The cron evaluator: parsing expressions, and finding their slots in a time
-- zone, across changes of its UTC offset.
--
-- One home for each function of this area: `jobq migrate up` re-applies this file, in one
-- transaction with every other changed file, whenever its content changes (sql/functions/README.md).
-- Every statement is idempotent: CREATE OR REPLACE, COMMENT, owner and grants stated in full.


-- Parses a cron expression or macro; white space (tabs, newlines too) around it is ignored. A day
-- field is * when one of its items is * or ? with no step or a step of 1 however written (*/1,
-- */01, ?/001), as robfig/cron; 1-31, 0-6 or SUN-SAT are restricted fields (they only list every
-- day), as robfig/cron and Vixie cron.
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
COMMENT ON FUNCTION jobq.cron_parse(text) IS
    'Parses a 5-field cron expression or macro (at most 1000 characters) into jobq.cron_fields; a day field is * when an item is * or ? with no step or a step of 1 (*/01 too). Pure; SECURITY DEFINER so that callers need no right on its helpers. Callers: anyone with EXECUTE (apps, workers, operators), jobq.schedule. Errors: JOB.INVALID_CRON naming the field.';

-- The next slot of a cron expression after an instant, in a time zone (default UTC).
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
COMMENT ON FUNCTION jobq.cron_next(text,timestamp with time zone,text) IS
    'The first slot of cron expression expr strictly after instant after, with wall-clock fields read in time zone timezone (default UTC); NULL when it never fires within ten years (or before 10000-01-01 UTC). after must be finite, from 1970-01-01 to before 10000-01-01 UTC. Pure apart from the tz database; SECURITY DEFINER so that callers need no right on its helpers. Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.INVALID_ARGUMENT (after).';

-- Every slot of expr in (from_at, to_at], at most max_slots (1..10000) of them: for previews of a
-- schedule and for tests.
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
COMMENT ON FUNCTION jobq.cron_slots(text,timestamp with time zone,timestamp with time zone,text,integer) IS
    'Every slot of cron expression expr in (from_at, to_at] in time zone timezone, at most max_slots (1 to 10000, default 1000). from_at and to_at must be finite, from 1970-01-01 to before 10000-01-01 UTC. For previews and tests; SECURITY DEFINER so that callers need no right on its helpers. Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE, JOB.INVALID_ARGUMENT (from_at, to_at, max_slots).';

-- Parses one field into its sorted matching values; raises JOB.INVALID_CRON naming the field.
CREATE OR REPLACE FUNCTION jobq._cron_field(p_field text, p_name text, p_lo integer, p_hi integer, p_names text[])
RETURNS integer[]
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_item text;
    v_base text;
    v_step integer;
    v_from integer;
    v_to integer;
    v_values integer[] := '{}'::integer[];
    v_parts text[];
BEGIN
    IF p_field IS NULL OR p_field = '' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field is empty', p_name));
    END IF;
    FOREACH v_item IN ARRAY string_to_array(upper(p_field), ',') LOOP
        v_parts := string_to_array(v_item, '/');
        IF cardinality(v_parts) > 2 OR v_parts[1] = '' THEN
            PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field item %L is not *, a value, a range or a step', p_name, v_item));
        END IF;
        v_base := v_parts[1];
        v_step := 1;
        IF cardinality(v_parts) = 2 THEN
            IF v_parts[2] !~ '^[0-9]{1,4}$' OR v_parts[2]::integer = 0 THEN
                PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field step %L must be a positive number', p_name, v_parts[2]));
            END IF;
            v_step := v_parts[2]::integer;
        END IF;

        IF v_base IN ('*', '?') THEN
            IF v_base = '?' AND p_name NOT IN ('day-of-month', 'day-of-week') THEN
                PERFORM jobq._raise('JOB.INVALID_CRON', format('? is only allowed in the day fields, not in %s', p_name));
            END IF;
            v_from := p_lo;
            v_to := p_hi;
        ELSE
            v_parts := string_to_array(v_base, '-');
            IF cardinality(v_parts) > 2 THEN
                PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field range %L has more than one -', p_name, v_item));
            END IF;
            v_from := jobq._cron_value(v_parts[1], p_name, p_lo, p_hi, p_names);
            IF cardinality(v_parts) = 2 THEN
                v_to := jobq._cron_value(v_parts[2], p_name, p_lo, p_hi, p_names);
            ELSIF cardinality(string_to_array(v_item, '/')) = 2 THEN
                v_to := p_hi;   -- a/n means a-max/n
            ELSE
                v_to := v_from;
            END IF;
            IF v_from > v_to THEN
                PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field range %L runs backwards', p_name, v_item));
            END IF;
        END IF;
        v_values := v_values || ARRAY(SELECT g FROM generate_series(v_from, v_to, v_step) AS g);
    END LOOP;
    RETURN ARRAY(SELECT DISTINCT v FROM unnest(v_values) AS v ORDER BY v);
END
$$;
COMMENT ON FUNCTION jobq._cron_field(text,text,integer,integer,text[]) IS
    'Private. The sorted values a cron field matches (p_lo..p_hi); raises JOB.INVALID_CRON naming the field.';

-- One value of a field: a number in range, or a name (p_names[1] is the name of p_lo).
CREATE OR REPLACE FUNCTION jobq._cron_value(p_text text, p_name text, p_lo integer, p_hi integer, p_names text[])
RETURNS integer
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_value integer;
BEGIN
    IF p_text IS NULL OR p_text = '' THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field has an empty value (two commas or a dangling -?)', p_name));
    ELSIF p_text ~ '^[0-9]{1,4}$' THEN
        v_value := p_text::integer;
    ELSIF p_names IS NOT NULL AND array_position(p_names, p_text) IS NOT NULL THEN
        v_value := p_lo + array_position(p_names, p_text) - 1;
    ELSE
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field value %L is not a number%s', p_name, p_text,
            CASE WHEN p_names IS NULL THEN '' ELSE ' or a name' END));
    END IF;
    -- 7 is Sunday too.
    IF p_name = 'day-of-week' AND v_value = 7 THEN
        RETURN 7;
    END IF;
    IF v_value < p_lo OR v_value > p_hi THEN
        PERFORM jobq._raise('JOB.INVALID_CRON', format('%s field value %s is outside %s-%s', p_name, v_value, p_lo, p_hi));
    END IF;
    RETURN v_value;
END
$$;
COMMENT ON FUNCTION jobq._cron_value(text,text,integer,integer,text[]) IS
    'Private. One cron field value: a number within range or a name; raises JOB.INVALID_CRON.';

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
COMMENT ON FUNCTION jobq._cron_next(jobq.cron_fields,timestamp with time zone,text) IS
    'Private. The first slot of parsed cron fields strictly after p_after in time zone p_timezone (every instant whose wall-clock time matches; a local time in a DST gap runs once just after it; a repeated local time runs twice when the hour field is every hour, else once at its first occurrence); NULL when none within ten years or before 10000-01-01 UTC. Pure. Errors: JOB.INVALID_ARGUMENT when p_after is not finite or outside [1970-01-01, 10000-01-01).';

-- The first wall-clock time at or after p_from (a whole minute) that matches the fields, or NULL
-- when none comes by p_limit. Naive timestamps: no time zone, every day has 24 hours.
CREATE OR REPLACE FUNCTION jobq._cron_local_next(p_fields jobq.cron_fields, p_from timestamp, p_limit timestamp)
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
COMMENT ON FUNCTION jobq._cron_local_next(jobq.cron_fields,timestamp without time zone,timestamp without time zone) IS
    'Private to jobq._cron_next. The first wall-clock time at or after p_from (a whole minute) matching the parsed fields, NULL when none by p_limit. Pure.';

-- Checks that an instant is finite and within the range cron evaluates; returns it.
CREATE OR REPLACE FUNCTION jobq._cron_instant(p_at timestamptz, p_name text)
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
COMMENT ON FUNCTION jobq._cron_instant(timestamp with time zone,text) IS
    'Private. Returns p_at when it is finite and in [1970-01-01, 10000-01-01) UTC, the range cron evaluates; raises JOB.INVALID_ARGUMENT naming p_name otherwise. Pure.';

-- Checks a time zone name; raises JOB.INVALID_TIMEZONE. Only names: POSIX rule strings (commas,
-- colons, <...>) are refused, and so is an offset beyond a day, which cron does not evaluate.
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
COMMENT ON FUNCTION jobq._check_timezone(text) IS
    'Private. Returns p_timezone when it is a zone name PostgreSQL knows (letters, digits, _ / + -, at most 64 characters; no POSIX rule string) whose UTC offset is within a day; raises JOB.INVALID_TIMEZONE.';
