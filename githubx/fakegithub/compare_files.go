package fakegithub

import (
	"fmt"
	"strings"

	"github.com/google/go-github/v66/github"
)

// diffFiles lists the files that differ between two commits, as GitHub's
// compare API reports them: filename, status and the blob SHA at head
// ("" for a removed file).
func (g *gitDir) diffFiles(base, head string) ([]*github.CommitFile, error) {
	out, err := g.run("", nil, "diff-tree", "-r", "--no-renames", "--raw", "-z", base, head)
	if err != nil {
		return nil, fmt.Errorf("failed to diff %s..%s: %w", base, head, err)
	}
	var files []*github.CommitFile
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		// ":<mode> <mode> <sha> <sha> <status>" then the path.
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) < 5 {
			continue
		}
		status, blob := "modified", meta[3]
		switch meta[4] {
		case "A":
			status = "added"
		case "D":
			status, blob = "removed", ""
		}
		files = append(files, &github.CommitFile{Filename: github.String(fields[i+1]), Status: github.String(status),
			SHA: github.String(blob)})
	}
	return files, nil
}
