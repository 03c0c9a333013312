package queue

// Validate checks settings; the error is an *InputError naming the field.
func (s Settings) Validate() error {
	if _, err := ParseEnum("mode", string(s.Mode), ModeSingle, ModeParallel); err != nil {
		return &InputError{Msg: err.Error()}
	}
	if _, err := ParseEnum("mergeMethod", string(s.MergeMethod), MergeCommit, Squash, Rebase); err != nil {
		return &InputError{Msg: err.Error()}
	}
	if _, err := ParseEnum("directMergeMode", string(s.DirectMergeMode), DirectMergeOff, DirectMergeAlways); err != nil {
		return &InputError{Msg: err.Error()}
	}
	if _, err := ParseEnum("optimizationMode", string(s.OptimizationMode), OptimizationOff, OptimizationBisectionSkipTests); err != nil {
		return &InputError{Msg: err.Error()}
	}
	switch {
	case s.Concurrency < 1 || s.Concurrency > 1000:
		return Inputf("concurrency must be between 1 and 1000, got %d", s.Concurrency)
	case s.TestingTimeoutMinutes < 0:
		return Inputf("testingTimeoutMinutes must not be negative")
	case s.PendingFailureDepth < 0:
		return Inputf("pendingFailureDepth must not be negative")
	case s.BatchingMaxWaitTimeMinutes < 0:
		return Inputf("batchingMaxWaitTimeMinutes must not be negative")
	case s.BatchingMinSize < 1:
		return Inputf("batchingMinSize must be at least 1")
	case s.BatchingMaxSize != 0 && s.BatchingMaxSize < s.BatchingMinSize:
		return Inputf("batchingMaxSize must be at least batchingMinSize")
	case s.BisectionConcurrency < 0:
		return Inputf("bisectionConcurrency must not be negative")
	case s.NotReadyTimeoutHours < 0:
		return Inputf("notReadyTimeoutHours must not be negative")
	case s.BisectionParts != 0 && (s.BisectionParts < 2 || s.BisectionParts > 100):
		return Inputf("bisectionParts must be between 2 and 100, got %d", s.BisectionParts)
	}
	return nil
}
