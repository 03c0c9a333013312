package postgres

// VersionQueries returns how many queue versions the store read from the
// database (the rest were served from memory).
func (s *Store) VersionQueries() uint64 { return s.versions.versionQueries() }
