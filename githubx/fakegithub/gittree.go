package fakegithub

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// validPath reports whether p is a relative, clean path inside the tree.
func validPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\x00\n\t") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || part == ".git" {
			return false
		}
	}
	return true
}

// writeTree applies files (path → content, or Delete) on top of base (a
// tree-ish, or "" for the empty tree) and writes the resulting tree.
func (g *gitDir) writeTree(base string, files map[string]string) (string, error) {
	tmp, err := os.MkdirTemp("", "fakegithub-index-")
	if err != nil {
		return "", fmt.Errorf("failed to create temp index dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if base == "" {
		base = emptyTreeSHA
	}
	if _, err := g.run("", env, "read-tree", base); err != nil {
		return "", fmt.Errorf("failed to read base tree: %w", err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		if !validPath(p) {
			return "", fmt.Errorf("invalid path %q", p)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var blobFiles []string
	for i, p := range paths {
		if files[p] == Delete {
			continue
		}
		f := filepath.Join(tmp, "blob-"+strconv.Itoa(i))
		if err := os.WriteFile(f, []byte(files[p]), 0o600); err != nil {
			return "", fmt.Errorf("failed to write blob: %w", err)
		}
		blobFiles = append(blobFiles, f)
	}
	var shas []string
	if len(blobFiles) > 0 {
		out, err := g.run(strings.Join(blobFiles, "\n")+"\n", nil, "hash-object", "-w", "--no-filters", "--stdin-paths")
		if err != nil {
			return "", fmt.Errorf("failed to write blobs: %w", err)
		}
		shas = strings.Fields(out)
		if len(shas) != len(blobFiles) {
			return "", fmt.Errorf("failed to write blobs: got %d ids for %d files", len(shas), len(blobFiles))
		}
	}
	var info strings.Builder
	next := 0
	for _, p := range paths {
		if files[p] == Delete {
			fmt.Fprintf(&info, "0 %s\t%s\n", zeroSHA, p)
			continue
		}
		fmt.Fprintf(&info, "100644 %s\t%s\n", shas[next], p)
		next++
	}
	if info.Len() > 0 {
		if _, err := g.run(info.String(), env, "update-index", "--replace", "--index-info"); err != nil {
			return "", fmt.Errorf("failed to update index: %w", err)
		}
	}
	tree, err := g.run("", env, "write-tree")
	if err != nil {
		return "", fmt.Errorf("failed to write tree: %w", err)
	}
	return tree, nil
}

// files reads every blob reachable from the tree of rev (path → content).
func (g *gitDir) files(rev string) (map[string]string, error) {
	out, err := g.execRaw("ls-tree", "-r", "-z", "--full-tree", rev)
	if err != nil {
		return nil, fmt.Errorf("failed to list tree: %w", err)
	}
	var paths, shas []string
	for _, entry := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 || f[1] != "blob" {
			continue
		}
		paths = append(paths, path)
		shas = append(shas, f[2])
	}
	result := make(map[string]string, len(paths))
	if len(paths) == 0 {
		return result, nil
	}
	res, err := g.exec(strings.Join(shas, "\n")+"\n", nil, "cat-file", "--batch")
	if err != nil || res.code != 0 {
		return nil, fmt.Errorf("failed to read blobs: %v (%s)", err, res.stderr)
	}
	r := bufio.NewReader(strings.NewReader(res.stdout))
	for i := range paths {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("failed to read blob header: %w", err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, fmt.Errorf("failed to read blob: unexpected header %q", header)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("failed to read blob size: %w", err)
		}
		buf := make([]byte, size+1) // content and trailing newline
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("failed to read blob: %w", err)
		}
		result[paths[i]] = string(buf[:size])
	}
	return result, nil
}

// fileAt reads one file of a commit; ok is false if the path is not a file.
func (g *gitDir) fileAt(commit, path string) (string, bool, error) {
	res, err := g.exec("", nil, "cat-file", "blob", commit+":"+path)
	if err != nil {
		return "", false, err
	}
	if res.code != 0 {
		return "", false, nil
	}
	return res.stdout, true, nil
}

// treeOf returns the tree of a commit.
func (g *gitDir) treeOf(commit string) (string, error) {
	return g.run("", nil, "rev-parse", "--verify", commit+"^{tree}")
}
