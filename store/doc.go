// Package store implements app.Store on a bbolt file. It is the only package
// that reads or writes the data file; it holds no rules of its own beyond
// keeping its indexes in step with the records.
//
// Layout (schema.go): one bucket per kind — projects, nodes, links — and
// one per index — console ports, node names, linked ports, UDP ports,
// active nodes — plus a meta bucket holding the schema version. Records are JSON (docs/decisions/0004 says why). Every Update is
// one bbolt read-write transaction, fsync'd on commit before it returns.
package store
