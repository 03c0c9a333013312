package app

import "fmt"

// DatabaseConfig selects the store.
type DatabaseConfig struct {
	Driver string `yaml:"driver"`
	Path   string `yaml:"path"`
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
