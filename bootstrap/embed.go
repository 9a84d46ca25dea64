// Package bootstrap embeds the cluster-scope SQL that must run, as a superuser, before the jobq
// migrations: the roles (001_roles.sql) and their rights on the database (002_database.sql).
// The same files run as they are with psql -f.
package bootstrap

import "embed"

// Files holds the bootstrap SQL files, applied in name order.
//
//go:embed *.sql
var Files embed.FS
