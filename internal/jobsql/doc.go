// Package jobsql is what package jobq (the applications' client) and package internal/engine (the
// runner's calls) both need of the jobq SQL engine, so that neither imports the other for it and
// each statement they share has one implementation: the database handle they run on (DB), the
// rows of a claimed attempt (Job, Lease, Outcome), the mapping of the engine's SQLSTATEs to Go
// errors (Error, FromDB: the one place it is done), and the three statements of an attempt's
// lease that both make: Claim (jobq.claim_job), Heartbeat (jobq.heartbeat_jobs) and Complete
// (jobq.complete_jobs), each a function of a DB.
//
// Package jobq re-exports the types as aliases (jobq.Job is jobsql.Job), so a value passes
// between the two packages unconverted and errors.Is matches jobq's sentinels on the errors of
// either. The package holds no state: every function works on the DB it is given.
package jobsql
