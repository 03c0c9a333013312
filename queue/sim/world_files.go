package sim

import (
	"context"
	"fmt"
	"slices"

	"github.com/mergequeue/mq/queue"
)

var _ queue.FileDiffer = (*World)(nil)

// rootFile is the file an ALL PR or an external push writes: every target
// depends on it.
const rootFile = "//:root"

// files lists the files a patch writes, in the content model's file view:
// a PR writes one file per impacted target (named after it), an ALL PR and
// an external push write rootFile, a PR impacting no target writes a file
// of its own that no target depends on (documentation).
func (w *World) files(p int) []string {
	pr := w.prs[p]
	switch {
	case p < 0 || pr == nil || pr.spec.AllTargets:
		return []string{rootFile}
	case len(pr.spec.Targets) == 0:
		return []string{fmt.Sprintf("docs/%d.md", p)}
	}
	return pr.spec.Targets
}

// blob is the content of file f in commit c: a hash of the patches of c's
// history that wrote it ("" if none did).
func (w *World) blob(c *commit, f string) string {
	var writers []int
	for ; c != nil; c = c.parent {
		if c.patch != 0 && slices.Contains(w.files(c.patch), f) {
			writers = append(writers, c.patch)
		}
	}
	if len(writers) == 0 {
		return ""
	}
	var h1, h2 uint64
	for _, p := range writers {
		h1 += splitmix(uint64(int64(p)))
		h2 += splitmix(uint64(int64(p)) ^ 0xf11e)
	}
	return fmt.Sprintf("%016x%016x%08x", h1, h2, uint32(len(writers)))
}

// SetFileDiffs turns DiffFiles on (off by default: it then answers that
// its list is incomplete, so the queue skips its own landing check in
// parallel mode).
func (w *World) SetFileDiffs(on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fileDiffs = on
}

// DiffFiles lists the files changed from the merge base of base and head to
// head, with their blob at head (the optional queue.FileDiffer, which the
// queue uses to verify landings in parallel mode); see SetFileDiffs.
func (w *World) DiffFiles(_ context.Context, repo queue.Repo, base, head string) (map[string]string, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("DiffFiles", repo); err != nil {
		return nil, false, err
	}
	if !w.fileDiffs {
		return map[string]string{}, false, nil
	}
	b, ok := w.commits[base]
	if !ok {
		return nil, false, fmt.Errorf("failed to compare: commit %s: %w", base, errWorldNotFound)
	}
	h, ok := w.commits[head]
	if !ok {
		return nil, false, fmt.Errorf("failed to compare: commit %s: %w", head, errWorldNotFound)
	}
	out := map[string]string{}
	for _, p := range patchesAbove(h, lca(b, h)) {
		for _, f := range w.files(p) {
			if _, done := out[f]; !done {
				out[f] = w.blob(h, f)
			}
		}
	}
	return out, true, nil
}
