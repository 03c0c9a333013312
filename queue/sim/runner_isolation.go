package sim

// Isolation runs (queue setting isolationRuns, issue #11): the engine also
// tests each admitted PR alone on the target head, beside the speculative
// chain. A PR failing alone twice leaves before it breaks the chain; one
// that passed alone has a chain failure retested once instead of failing.
// Isolation runs are CI runs like any other (the simulated CI runs them,
// Result.CIRuns counts them) and share bisectionConcurrency's slots.

// isolationLabel marks the isolation variant of a candidate ("iso").
func isolationLabel(c OursConfig, parts []string) []string {
	if c.Isolation {
		return append(parts, "iso")
	}
	return parts
}

// WithIsolation returns the isolation-run variants of candidates: the
// same settings with isolationRuns on.
func WithIsolation(candidates ...OursConfig) []OursConfig {
	out := make([]OursConfig, len(candidates))
	for i, c := range candidates {
		c.Isolation = true
		out[i] = c
	}
	return out
}
