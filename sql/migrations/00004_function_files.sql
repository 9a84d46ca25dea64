-- jobq schema, area 4: what `jobq migrate up` records about sql/functions/ and about breaking
-- changes, so that runners can tell a compatible schema from one they must not run against.
--
--   jobq.function_files    one row per file of sql/functions/ applied: its name and the sha256 of
--                          its content; a file is re-applied when its content changes.
--   jobq.breaking_changes  one row per migration that breaks runners older than it (a removed or
--                          changed function signature, a column they read dropped). A runner
--                          refuses a database holding a breaking change newer than it knows, and
--                          runs on across any other upgrade (docs/upgrading.md). A breaking
--                          migration inserts its own row.

-- +goose Up
CREATE TABLE jobq.function_files (
    name       text PRIMARY KEY,
    checksum   text NOT NULL CHECK (checksum ~ '^[0-9a-f]{64}$'),
    applied_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE jobq.function_files IS 'The files of sql/functions/ applied by jobq migrate up, with the sha256 of the content applied.';

CREATE TABLE jobq.breaking_changes (
    version     bigint PRIMARY KEY,
    description text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE jobq.breaking_changes IS 'Migrations that break older runners: a runner refuses a database holding one newer than it knows.';
GRANT SELECT ON jobq.function_files, jobq.breaking_changes TO worker_runtime, jobq_app, jobq_operator;

-- +goose Down
DROP TABLE jobq.breaking_changes;
DROP TABLE jobq.function_files;
