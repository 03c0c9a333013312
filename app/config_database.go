package app

import (
	"fmt"
	"net/url"

	"github.com/mergequeue/mq/queue/postgres"
)

// Database drivers (database.driver).
const (
	// DriverSQLite is one SQLite file (database.path), the default.
	DriverSQLite = "sqlite"
	// DriverPostgres is a PostgreSQL database (database.url).
	DriverPostgres = "postgres"
)

// DatabaseConfig selects the store.
type DatabaseConfig struct {
	Driver string `yaml:"driver"`
	// Path is the SQLite file (driver sqlite).
	Path string `yaml:"path"`
	// URL is the PostgreSQL connection URL, postgres://user:password@host:port/db?sslmode=...
	// (driver postgres; MQ_DATABASE_URL overrides it). A search_path
	// parameter selects the schema.
	URL string `yaml:"url"`
	// Replicas lets several servers share the PostgreSQL schema, dividing
	// the queues by per-queue leases (opt-in; docs/operations.md).
	// Without it a second server on the schema is refused.
	Replicas bool `yaml:"replicas"`
}

// Describe names the database for the logs, without a password.
func (d DatabaseConfig) Describe() string {
	if d.Driver == DriverPostgres {
		return d.Driver + " " + postgres.Redact(d.URL)
	}
	return d.Driver + " " + d.Path
}

// validate reports the database block's problems, each naming its key and
// never quoting the URL (it may hold a password).
func (d DatabaseConfig) validate() []error {
	var errs []error
	switch d.Driver {
	case DriverSQLite:
		if d.Path == "" {
			errs = append(errs, fmt.Errorf("database.path is required (or %s)", EnvDatabasePath))
		}
		if d.URL != "" {
			errs = append(errs, fmt.Errorf("database.url is for driver %q; driver %q uses database.path", DriverPostgres, DriverSQLite))
		}
		if d.Replicas {
			errs = append(errs, fmt.Errorf("database.replicas is for driver %q: a SQLite file serves one process", DriverPostgres))
		}
	case DriverPostgres:
		if d.URL == "" {
			errs = append(errs, fmt.Errorf("database.url is required with driver %q (or %s)", DriverPostgres, EnvDatabaseURL))
			break
		}
		u, err := url.Parse(d.URL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			errs = append(errs, fmt.Errorf("database.url: want a postgres://user:password@host:port/database URL (the value is not shown: it may hold a password)"))
		}
	default:
		errs = append(errs, fmt.Errorf("database.driver: %q is not supported (%q or %q)", d.Driver, DriverSQLite, DriverPostgres))
	}
	return errs
}
