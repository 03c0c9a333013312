package sqlstore

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// column pairs a column name with the value to write and the destination to
// scan into, so that each table's column order is written down once.
type column struct {
	name string
	arg  any
	dest any
}

func columnNames(cols []column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

func columnArgs(cols []column) []any {
	out := make([]any, len(cols))
	for i, c := range cols {
		out[i] = c.arg
	}
	return out
}

func columnDests(cols []column) []any {
	out := make([]any, len(cols))
	for i, c := range cols {
		out[i] = c.dest
	}
	return out
}

// selectList is "a, b, c", each column optionally qualified by a table alias.
func selectList(cols []column, alias string) string {
	names := columnNames(cols)
	if alias != "" {
		for i, n := range names {
			names[i] = alias + "." + n
		}
	}
	return strings.Join(names, ", ")
}

// insertSQL is an INSERT of every column; with conflict set, an upsert on
// that key that overwrites every other column.
func insertSQL(table string, cols []column, conflict string) string {
	names := columnNames(cols)
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")
	q := "INSERT INTO " + table + " (" + strings.Join(names, ", ") + ") VALUES (" + marks + ")"
	if conflict == "" {
		return q
	}
	var sets []string
	for _, n := range names {
		if n != conflict {
			sets = append(sets, n+" = excluded."+n)
		}
	}
	return q + " ON CONFLICT (" + conflict + ") DO UPDATE SET " + strings.Join(sets, ", ")
}

// updateColumns is cols without key and the kept ones, in order.
func updateColumns(cols []column, key string, keep ...string) []column {
	var out []column
	for _, c := range cols {
		if c.name != key && !slices.Contains(keep, c.name) {
			out = append(out, c)
		}
	}
	return out
}

// updateSQL is an UPDATE of every column but key and keep, of the row
// whose key is the last argument; updateArgs gives its arguments.
func updateSQL(table string, cols []column, key string, keep ...string) string {
	return "UPDATE " + table + " SET " + strings.Join(columnNames(updateColumns(cols, key, keep...)), " = ?, ") +
		" = ? WHERE " + key + " = ?"
}

// updateArgs is the arguments of updateSQL with the same cols, key and keep.
func updateArgs(cols []column, key string, keep ...string) []any {
	args := columnArgs(updateColumns(cols, key, keep...))
	for _, c := range cols {
		if c.name == key {
			return append(args, c.arg)
		}
	}
	panic("sqlite: key column " + key + " is not among the columns")
}

// Unix nanoseconds cover 1677-09-21 to 2262-04-11.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// timeVal stores a time as unix nanoseconds; the zero time as NULL.
type timeVal time.Time

func (v timeVal) Value() (driver.Value, error) {
	t := time.Time(v)
	if t.IsZero() {
		return nil, nil
	}
	if t.Before(minTime) || t.After(maxTime) {
		return nil, fmt.Errorf("time %s is outside the storable range (years 1678 to 2262)", t.UTC().Format(time.RFC3339))
	}
	return t.UnixNano(), nil
}

// timeScan reads what timeVal wrote, in UTC.
type timeScan struct{ p *time.Time }

func (s timeScan) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*s.p = time.Time{}
	case int64:
		*s.p = time.Unix(0, v).UTC()
	default:
		return fmt.Errorf("time column holds %T, want INTEGER", src)
	}
	return nil
}

// boolPtrVal stores a *bool: NULL, 0 or 1.
type boolPtrVal struct{ p *bool }

func (v boolPtrVal) Value() (driver.Value, error) {
	if v.p == nil {
		return nil, nil
	}
	if *v.p {
		return int64(1), nil
	}
	return int64(0), nil
}

// boolPtrScan reads what boolPtrVal wrote; NULL becomes nil.
type boolPtrScan struct{ p **bool }

func (s boolPtrScan) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*s.p = nil
	case int64:
		b := v != 0
		*s.p = &b
	default:
		return fmt.Errorf("boolean column holds %T, want INTEGER", src)
	}
	return nil
}

// jsonVal stores v as JSON text; a nil slice becomes "null", an empty one "[]".
type jsonVal struct{ v any }

func (j jsonVal) Value() (driver.Value, error) {
	b, err := json.Marshal(j.v)
	if err != nil {
		return nil, fmt.Errorf("failed to encode JSON column: %w", err)
	}
	return string(b), nil
}

// jsonScan decodes JSON text into p; "null" leaves a slice nil.
type jsonScan struct{ p any }

func (j jsonScan) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("JSON column holds %T, want TEXT", src)
	}
	if err := json.Unmarshal(b, j.p); err != nil {
		return fmt.Errorf("failed to decode JSON column: %w", err)
	}
	return nil
}

// existsErr marks a unique violation (as the dialect tells it) as
// queue.ErrExists, keeping the cause.
func (o *ops) existsErr(err error) error {
	if o.d.isUnique(err) {
		return fmt.Errorf("%w: %w", queue.ErrExists, err)
	}
	return err
}

// rowsAffected returns queue.ErrNotFound when res changed no row.
func rowsAffected(res interface{ RowsAffected() (int64, error) }) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("failed to read rows affected: %w", err)
	}
	if n == 0 {
		return queue.ErrNotFound
	}
	return nil
}

// sqlLimit turns "0 or less = all" into a LIMIT both dialects take
// (SQLite's -1 is an error in PostgreSQL).
func sqlLimit(limit int) int64 {
	if limit <= 0 {
		return math.MaxInt64
	}
	return int64(limit)
}

// conflictVal stores an entry's pending conflict as JSON, none as ”.
type conflictVal struct{ c *queue.Conflict }

func (v conflictVal) Value() (driver.Value, error) {
	if v.c == nil {
		return "", nil
	}
	return jsonVal{v.c}.Value()
}

// conflictScan reads what conflictVal wrote.
type conflictScan struct{ p **queue.Conflict }

func (s conflictScan) Scan(src any) error {
	*s.p = nil
	switch v := src.(type) {
	case nil:
		return nil
	case string:
		if v == "" {
			return nil
		}
	case []byte:
		if len(v) == 0 {
			return nil
		}
	}
	var c queue.Conflict
	if err := (jsonScan{&c}).Scan(src); err != nil {
		return err
	}
	*s.p = &c
	return nil
}
