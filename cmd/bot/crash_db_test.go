//go:build unix

package main

import (
	"database/sql"
	"fmt"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// The crash tests read the bot's SQLite file directly, read-only and after
// the last process stopped, with plain SQL on two tables: what they check
// (the merge log, the webhook inbox) must hold whatever Go API the store
// offers at the time.

// dbMerge is one record of a queue's merge log.
type dbMerge struct {
	PR     int
	Before string
	After  string
}

// dbDelivery is one stored webhook delivery.
type dbDelivery struct {
	ID       string
	Event    string
	Done     bool
	Attempts int
	Error    string
}

// openDB opens the bot's database read-only (its PostgreSQL schema when
// the replicas share one).
func (h *crashHarness) openDB() (*sql.DB, error) {
	if h.dbURL != "" {
		db, err := sql.Open("pgx", h.dbURL)
		if err != nil {
			return nil, fmt.Errorf("failed to open the PostgreSQL database: %w", err)
		}
		return db, nil
	}
	db, err := sql.Open("sqlite", "file:"+h.dbPath+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, fmt.Errorf("failed to open %s: %w", h.dbPath, err)
	}
	return db, nil
}

// mergeLog returns the merge log of every queue, in the order it was
// appended.
func (h *crashHarness) mergeLog() ([]dbMerge, error) {
	db, err := h.openDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT pr_number, before_sha, after_sha FROM merges ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("failed to read the merge log: %w", err)
	}
	defer rows.Close()
	var out []dbMerge
	for rows.Next() {
		var m dbMerge
		if err := rows.Scan(&m.PR, &m.Before, &m.After); err != nil {
			return nil, fmt.Errorf("failed to read the merge log: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to read the merge log: %w", err)
	}
	return out, nil
}

// deliveries returns every stored webhook delivery by id.
func (h *crashHarness) deliveries() (map[string]dbDelivery, error) {
	db, err := h.openDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, event, done, attempts, error FROM deliveries`)
	if err != nil {
		return nil, fmt.Errorf("failed to read the webhook inbox: %w", err)
	}
	defer rows.Close()
	out := map[string]dbDelivery{}
	for rows.Next() {
		var d dbDelivery
		var errText sql.NullString
		if err := rows.Scan(&d.ID, &d.Event, &d.Done, &d.Attempts, &errText); err != nil {
			return nil, fmt.Errorf("failed to read the webhook inbox: %w", err)
		}
		d.Error = errText.String
		out[d.ID] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to read the webhook inbox: %w", err)
	}
	return out, nil
}
