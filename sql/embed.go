// Package sql embeds jobq's schema migrations: goose v3 files, applied in version order by
// package migrate. A landed migration is never edited; a change is a new file.
package sql

import "embed"

// Migrations holds the *.sql goose migrations of the jobq schema.
//
//go:embed *.sql
var Migrations embed.FS
