-- A claim's receipt stored as it is (issue 33: the drain's CPU). Each claim writes one
-- jobq.leases row listing the jobs it took: 500 ids are a 4,024-byte array, above the 2 kB from
-- which PostgreSQL compresses a row's values, so every claim ran pglz over it: perf of a draining
-- runner put pglz_compress at 2.5 % of the database's CPU. Measured in one backend, 4,000 rows of
-- a 500-id array: 620-960 ms compressed (to 1,652 bytes), 104-159 ms stored as they are. A row is
-- now compressed only above 8,160 bytes (about 1,000 ids), where PostgreSQL moves it out of line as
-- before. The WAL of a claim grows by about 2.4 kB, under 5 bytes a job. toast_tuple_target
-- exists on PostgreSQL 11 and later; setting it takes a SHARE UPDATE EXCLUSIVE lock and rewrites
-- nothing (rows stored before keep their form).

-- +goose Up
ALTER TABLE jobq.leases SET (toast_tuple_target = 8160);

-- +goose Down
ALTER TABLE jobq.leases RESET (toast_tuple_target);
