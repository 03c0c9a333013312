package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

var (
	byHandBlock = regexp.MustCompile(`(?s)The demo is over.*?\n\nEach one shows up`)
	curlLine    = regexp.MustCompile(`^curl -s(?: -X ([A-Z]+))? -H '([^:']+): ([^']+)' (\S+) -d '([^']*)'$`)
)

// After its demo the sandbox prints a user token and curl commands; run as
// printed, they open pull requests that the queue merges, one queued by a
// comment and one by the enqueue label, and commit a change of one's own.
func TestSandboxByHand(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sb := startBot(ctx, "sandbox", "--addr", "127.0.0.1:0", "--ci-time", "0", "--dir", t.TempDir())
	var block string
	waitFor(t, "the by-hand instructions after the demo", func() bool {
		block = byHandBlock.FindString(sb.stdout.String())
		return block != ""
	}, func() string { return "stdout:\n" + sb.stdout.String() + "\nstderr:\n" + sb.stderr.String() })

	var header, value, repoAPI string
	n := 0
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "curl ") {
			continue
		}
		m := curlLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("cannot read the printed command %q", line)
		}
		method := m[1]
		if method == "" {
			method = http.MethodPost
		}
		header, value = m[2], m[3]
		status, body := call(t, method, m[4], header, value, m[5])
		if status/100 != 2 {
			t.Fatalf("%s: %d %s", line, status, body)
		}
		if repoAPI == "" {
			repoAPI = m[4][:strings.LastIndex(m[4], "/pulls")]
		}
		n++
	}
	if n != 7 {
		t.Fatalf("ran %d printed commands, want 7:\n%s", n, block)
	}
	for _, pr := range []int{5, 6} {
		waitFor(t, fmt.Sprintf("PR #%d, opened and queued by hand, to merge", pr), func() bool {
			_, body := call(t, http.MethodGet, fmt.Sprintf("%s/pulls/%d", repoAPI, pr), header, value, "")
			var got struct{ Merged bool }
			return json.Unmarshal([]byte(body), &got) == nil && got.Merged
		}, func() string { return "stdout:\n" + sb.stdout.String() })
	}
	if status, body := call(t, http.MethodGet, repoAPI+"/pulls/7", header, value, ""); status != http.StatusOK || !strings.Contains(body, `"user":{"login":"alice"`) {
		t.Errorf("the PR of one's own change = %d %s, want one by alice", status, body)
	}
	cancel()
	if code := sb.exitCode(t); code != 0 {
		t.Fatalf("sandbox exit %d after Ctrl-C; stderr:\n%s", code, sb.stderr.String())
	}
}

// call makes one request and returns its status and body.
func call(t *testing.T, method, url, header, value, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(header, value)
	resp, err := (&http.Client{Timeout: setupBound}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}
