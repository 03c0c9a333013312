package app

import "fmt"

// Database drivers (database.driver).
const (
	// DriverSQLite is one SQLite file (database.path), the default.
	DriverSQLite = "sqlite"
)

// DatabaseConfig selects the store.
type DatabaseConfig struct {
	Driver string `yaml:"driver"`
	Path   string `yaml:"path"`
}

// Describe names the database for the logs.
func (d DatabaseConfig) Describe() string {
	return d.Driver + " " + d.Path
}

// validate reports the database block's problems, each naming its key.
func (d DatabaseConfig) validate() []error {
	var errs []error
	if d.Driver != DefaultDatabaseDriver {
		errs = append(errs, fmt.Errorf("database.driver: %q is not supported (only %q)", d.Driver, DefaultDatabaseDriver))
	}
	if d.Path == "" {
		errs = append(errs, fmt.Errorf("database.path is required (or %s)", EnvDatabasePath))
	}
	return errs
}
