// Package autotune chooses a queue's settings from its own traffic
// (issue #20): an Observer keeps, over a sliding window, the arrival rate,
// the CI duration distribution, the share of PRs that fail and the flake
// rate of runs, from the queue's events (in parallel mode also how the
// impacted targets of its PRs overlap); a Chooser picks, within the
// user's Bounds, the candidate setting (a Tuning) with the lowest
// estimated p95 time-to-merge or a leaner one within ChoiceMargin of it
// (Tuning.Leaner), estimating each with an Evaluator (the
// simulator, queue/sim, on a workload fitted to the observation); a Tuner
// runs the two at intervals and explains each change (Change.Reason).
//
// Nothing here touches a store or a queue's lock: the caller feeds the
// Observer, calls Tuner.Retune outside any lock, and applies a Change as a
// settings update.
package autotune
