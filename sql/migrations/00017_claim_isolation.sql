-- +goose Up
-- A claim refuses REPEATABLE READ and SERIALIZABLE (issue 29): its snapshot, taken before the
-- claim, cannot see a pause that committed since, nor the claims other transactions committed,
-- so it could take jobs of a paused queue or beyond a limit. jobq._claim raises this code.
INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.CLAIM_ISOLATION', 'JQ205',
     'A claim ran in a REPEATABLE READ or SERIALIZABLE transaction, whose snapshot cannot see a pause or the claims other transactions committed since it began.',
     'Claim in a READ COMMITTED transaction (the default; the runner''s claims are): BEGIN ISOLATION LEVEL READ COMMITTED, or claim outside the longer transaction.');

-- +goose Down
DELETE FROM jobq.error_codes WHERE code = 'JOB.CLAIM_ISOLATION';
