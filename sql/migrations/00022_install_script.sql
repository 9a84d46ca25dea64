-- +goose Up
-- The SQL install of make dist (jobq migrate script) refuses a database that has jobq already
-- (issue 31): an installed jobq is upgraded by jobq migrate up. The script raises this code
-- before the catalogue exists; it is catalogued here for callers and the docs.
INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.ALREADY_INSTALLED', 'JQ302',
     'The SQL install was applied to a database that has jobq already.',
     'Upgrade an installed jobq with jobq migrate up, or apply the SQL of its dry run with psql; the install script applies only to a database without jobq.');

-- +goose Down
DELETE FROM jobq.error_codes WHERE code = 'JOB.ALREADY_INSTALLED';
