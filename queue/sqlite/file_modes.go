package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/rs/zerolog"
)

// fileMode is the mode of the database file and its siblings: the
// process's user only.
const fileMode fs.FileMode = 0o600

// siblingSuffixes name the files SQLite keeps beside the database.
var siblingSuffixes = []string{"-wal", "-shm", "-journal"}

// secureFiles creates the database file at abs with fileMode when it does
// not exist (SQLite then creates -wal and -shm with the same mode), and
// tightens the database file and any existing sibling that others may read
// or write to fileMode, logging each at warn level (see tighten).
func secureFiles(ctx context.Context, abs string) error {
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, fileMode) //nolint:gosec // the operator names the file
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return fmt.Errorf("failed to create database file %s: %w", abs, err)
		}
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("failed to create database file %s: %w", abs, err)
	}
	for _, p := range append([]string{abs}, siblingPaths(abs)...) {
		if err := tighten(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

func siblingPaths(abs string) []string {
	out := make([]string, 0, len(siblingSuffixes))
	for _, s := range siblingSuffixes {
		out = append(out, abs+s)
	}
	return out
}

// tighten sets path's mode to fileMode if others than its owner may read
// or write it; a missing file is fine, and a file it may not chmod (another
// user's) is logged at error level and left as it is.
func tighten(ctx context.Context, path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to check the mode of %s: %w", path, err)
	}
	old := st.Mode().Perm()
	if old&^fileMode == 0 {
		return nil
	}
	if err := os.Chmod(path, fileMode); err != nil {
		// Another user's file the process may write to: an operator's
		// choice, reported but not fatal.
		zerolog.Ctx(ctx).Error().Err(err).Str("file", path).Str("mode", fmt.Sprintf("%04o", old)).
			Msg("database file is readable by others and cannot be restricted to its owner; chmod 0600 it")
		return nil
	}
	zerolog.Ctx(ctx).Warn().Str("file", path).Str("was", fmt.Sprintf("%04o", old)).Str("now", fmt.Sprintf("%04o", fileMode)).
		Msg("database file was readable by others; restricted to its owner")
	return nil
}
