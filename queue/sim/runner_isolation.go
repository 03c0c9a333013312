package sim

// Isolation runs (queue setting isolationRuns, issue #11): the engine also
// tests each admitted PR alone on the target head, and a PR joins the
// speculative chain only once it passed alone. A PR failing alone twice
// leaves without ever breaking the chain; one that passed alone has a chain
// failure retested once instead of failing.
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

// isolationCandidates are the isolation-run settings tried on the
// Chromium-like preset at concurrency k: unbatched, and batched (the chain
// of PRs that passed alone rarely fails, so batches rarely split) with
// isolation runs in bisectionConcurrency's slots at k and at 5k/3 (one
// isolation run per PR needs about as many slots as the chain would
// unbatched, more with its retries).
func isolationCandidates(k int) []OursConfig {
	flakes := OursConfig{Concurrency: k, PendingFailureDepth: 1, CanOptimisticallyMerge: true}
	batched := func(bis int) OursConfig {
		c := flakes
		c.Batch, c.BatchingMinSize, c.BatchingMaxSize, c.BatchingMaxWaitMinutes, c.BisectionConcurrency = true, 2, 8, 5, bis
		return c
	}
	return WithIsolation(flakes, batched(k), batched(k*5/3))
}
