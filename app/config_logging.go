package app

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// LoggingConfig configures the process logger (see Config.Logger).
type LoggingConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// validate reports the logging block's problems, each naming its key.
func (l LoggingConfig) validate() []error {
	var errs []error
	if _, err := parseLogLevel(l.Level); err != nil {
		errs = append(errs, err)
	}
	if f := strings.ToLower(l.Format); f != "json" && f != "console" {
		errs = append(errs, fmt.Errorf("logging.format: %q is not one of json, console", l.Format))
	}
	return errs
}

func parseLogLevel(s string) (zerolog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return zerolog.DebugLevel, nil
	case "info":
		return zerolog.InfoLevel, nil
	case "warn":
		return zerolog.WarnLevel, nil
	case "error":
		return zerolog.ErrorLevel, nil
	}
	return zerolog.InfoLevel, fmt.Errorf("logging.level: %q is not one of debug, info, warn, error (or %s)", s, EnvLogLevel)
}

// Logger builds the process logger: JSON (or, with format console, a
// human-readable form) on stderr, at the configured level, with timestamps.
// An invalid level falls back to info; Validate reports it.
func (c *Config) Logger() zerolog.Logger { return c.loggerTo(os.Stderr) }

func (c *Config) loggerTo(w io.Writer) zerolog.Logger {
	if strings.EqualFold(c.Logging.Format, "console") {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.RFC3339}
	}
	level, _ := parseLogLevel(c.Logging.Level)
	return zerolog.New(w).Level(level).With().Timestamp().Logger()
}
