// Package sql embeds jobq's engine in two parts:
//
//   - migrations/: the goose migrations of the tables, indexes, types, grants and data, forward-only
//     from the first tagged release (a landed migration is never edited; a change is a new file);
//   - functions/: one file per area of the engine's functions, views and policies, each function
//     defined exactly once in the tree. Package migrate applies a file, in name order, whenever its
//     content changed, right after the migrations and under the same lock.
//
// A change to a function is therefore a diff of its one file. See functions/README.md.
package sql

import (
	"embed"
	"io/fs"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

//go:embed functions/*.sql
var functionFiles embed.FS

// Migrations holds the *.sql goose migrations, at the root of the file system.
var Migrations = sub(migrationFiles, "migrations")

// Functions holds the *.sql function files, at the root of the file system, applied in name order.
var Functions = sub(functionFiles, "functions")

func sub(f embed.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // the embed pattern above guarantees the folder
	}
	return s
}
