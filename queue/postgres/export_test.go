package postgres

import "context"

// VersionQueries returns how many queue versions the store read from the
// database (the rest were served from memory).
func (s *Store) VersionQueries() uint64 { return s.versions.versionQueries() }

// WriterExec runs a statement on the writer connection.
func (s *Store) WriterExec(ctx context.Context, query string) error {
	_, err := s.writer.ExecContext(ctx, query)
	return err
}
