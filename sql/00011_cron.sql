-- jobq schema step 11: cron, parsed and evaluated in the database.
--
-- Standard 5-field cron: minute hour day-of-month month day-of-week. Each field is a list of
-- items; an item is *, a value, or a range a-b, optionally with a step /n (a/n means a-max/n).
-- Months take JAN..DEC and days of week SUN..SAT (case-insensitive); 0 and 7 are Sunday; ? is *
-- in the day fields. Macros: @yearly (@annually), @monthly, @weekly, @daily (@midnight), @hourly.
-- Day rule (as Vixie cron and robfig/cron): when both day fields are restricted a day matches
-- either; when one of them is * (step 1) both must match.
--
-- Slots are wall-clock times in the schedule's time zone. Across a DST change: a local time that
-- does not exist (clocks go forward) runs at the instant PostgreSQL maps it to, just after the
-- gap; a local time that happens twice (clocks go back) runs once. Slots are strictly increasing
-- instants.

-- +goose Up

CREATE TYPE jobq.cron_fields AS (
    minutes integer[],
    hours   integer[],
    days    integer[],
    months  integer[],
    dows    integer[],
    any_day boolean,
    any_dow boolean
);
COMMENT ON TYPE jobq.cron_fields IS 'A parsed cron expression: the matching values of each field, and whether each day field is *.';

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.INVALID_CRON', 'JQ601', 'The cron expression does not parse, or never fires.',
     'Use 5 fields (minute hour day-of-month month day-of-week) with *, values, ranges a-b, steps /n, lists, JAN-DEC, SUN-SAT, or a macro such as @daily.'),
    ('JOB.INVALID_TIMEZONE', 'JQ602', 'The time zone is not known to PostgreSQL.',
     'Use an IANA name such as UTC, Asia/Tokyo or America/New_York (SELECT name FROM pg_timezone_names).');

-- Parses one field into its sorted matching values; raises JOB.INVALID_CRON naming the field.
-- +goose StatementBegin
CREATE FUNCTION jobq._cron_field(p_field text, p_name text, p_lo integer, p_hi integer, p_names text[])
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._cron_field(text, text, integer, integer, text[]) IS
    'Private. The sorted values a cron field matches (p_lo..p_hi); raises JOB.INVALID_CRON naming the field.';

-- One value of a field: a number in range, or a name (p_names[1] is the name of p_lo).
-- +goose StatementBegin
CREATE FUNCTION jobq._cron_value(p_text text, p_name text, p_lo integer, p_hi integer, p_names text[])
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
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._cron_value(text, text, integer, integer, text[]) IS
    'Private. One cron field value: a number within range or a name; raises JOB.INVALID_CRON.';

-- Parses a cron expression or macro.
-- +goose StatementBegin
CREATE FUNCTION jobq.cron_parse(expr text)
RETURNS jobq.cron_fields
LANGUAGE plpgsql
IMMUTABLE
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

-- The first slot strictly after p_after, for parsed fields p_fields in time zone p_timezone;
-- NULL when none comes within ten years (e.g. 0 0 30 2 *).
-- +goose StatementBegin
CREATE FUNCTION jobq._cron_next(p_fields jobq.cron_fields, p_after timestamptz, p_timezone text)
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

-- Checks a time zone name; raises JOB.INVALID_TIMEZONE.
-- +goose StatementBegin
CREATE FUNCTION jobq._check_timezone(p_timezone text)
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

-- The next slot of a cron expression after an instant, in a time zone (default UTC).
-- +goose StatementBegin
CREATE FUNCTION jobq.cron_next(expr text, after timestamptz, timezone text DEFAULT 'UTC')
RETURNS timestamptz
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jobq._cron_next(jobq.cron_parse(cron_next.expr), cron_next.after, jobq._check_timezone(cron_next.timezone))
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq.cron_next(text, timestamptz, text) IS
    'The first slot of cron expression expr strictly after instant after, with wall-clock fields read in time zone '
    'timezone (default UTC); NULL when it never fires within ten years. Pure apart from the tz database. '
    'Errors: JOB.INVALID_CRON, JOB.INVALID_TIMEZONE.';

-- Every slot of expr in (p_from, p_to], at most p_limit of them: for previews and tests.
-- +goose StatementBegin
CREATE FUNCTION jobq.cron_slots(expr text, from_at timestamptz, to_at timestamptz, timezone text DEFAULT 'UTC', max_slots integer DEFAULT 1000)
RETURNS SETOF timestamptz
LANGUAGE plpgsql
STABLE
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

-- The public cron functions run as their caller and use these pure helpers (and _raise for
-- their errors): callers need EXECUTE on them. They read and write nothing.
GRANT EXECUTE ON FUNCTION jobq.cron_parse(text), jobq.cron_next(text, timestamptz, text),
    jobq.cron_slots(text, timestamptz, timestamptz, text, integer),
    jobq._cron_field(text, text, integer, integer, text[]), jobq._cron_value(text, text, integer, integer, text[]),
    jobq._cron_next(jobq.cron_fields, timestamptz, text), jobq._check_timezone(text), jobq._raise(text, text)
TO worker_runtime, jobq_app, jobq_operator;

-- +goose Down
DROP FUNCTION jobq.cron_slots(text, timestamptz, timestamptz, text, integer);
DROP FUNCTION jobq.cron_next(text, timestamptz, text);
DROP FUNCTION jobq._check_timezone(text);
DROP FUNCTION jobq._cron_next(jobq.cron_fields, timestamptz, text);
DROP FUNCTION jobq.cron_parse(text);
DROP FUNCTION jobq._cron_value(text, text, integer, integer, text[]);
DROP FUNCTION jobq._cron_field(text, text, integer, integer, text[]);
DELETE FROM jobq.error_codes WHERE sqlstate IN ('JQ601', 'JQ602');
DROP TYPE jobq.cron_fields;
