package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// series is one figure's values over the rounds.
type series []float64

// median is the middle value (the mean of the two middle ones for an even
// count); 0 for none.
func (s series) median() float64 {
	if len(s) == 0 {
		return 0
	}
	v := slices.Clone([]float64(s))
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// spread is the smallest and the largest value.
func (s series) spread() (lo, hi float64) {
	if len(s) == 0 {
		return 0, 0
	}
	return slices.Min(s), slices.Max(s)
}

// loadRow is one load figure over the rounds.
type loadRow struct {
	Name    string
	Rate    series // per second
	P50     series // milliseconds
	P99     series // milliseconds
	Ratio   series // Rate over the empty handler's in the same round, percent
	Errors  int
	FirstEr error
}

// writeRow is the writes figures over the rounds, for each test branch
// builder (Builders, in column order): without batching, with batches of
// writesBatch, and with batches landing by fast-forward.
type writeRow struct {
	Builders                     []string
	Single, Batched, FastForward []writeSeries // by builder
}

// writeSeries is one writes figure over the rounds.
type writeSeries struct {
	Writes, Calls series // per merged PR
	Git           series // git smart HTTP requests per merged PR (fetches and pushes)
	Took          series // seconds
}

// machine describes where the figures were measured.
func machine() string {
	model := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		_ = f.Close()
	}
	s := fmt.Sprintf("%d CPUs (GOMAXPROCS %d), %s, %s/%s", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if model != "" {
		s += ", " + model
	}
	return s
}

// report prints the figures as Markdown.
func report(w io.Writer, o options, rows []loadRow, writes *writeRow, loadAvg string) {
	fmt.Fprintf(w, "Measured by `%s`: %d round%s, each figure for %s after %s of warm-up; medians, with the smallest and largest round in brackets.\n\n",
		o.commandLine(), o.rounds, plural(o.rounds), o.duration, o.warmup())
	fmt.Fprintf(w, "Store: %s. Machine: %s.", storeLabel(context.Background(), o.postgres), machine())
	if loadAvg != "" {
		fmt.Fprintf(w, " Load average before the run: %s (the machine is shared: compare ratios, measured in the same round, rather than absolute figures).", loadAvg)
	}
	fmt.Fprint(w, "\n\n")
	if len(rows) > 0 {
		fmt.Fprintln(w, "| figure | per second | p50 | p99 | vs the empty handler | failed |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|")
		for _, r := range rows {
			ratio := "—"
			if len(r.Ratio) > 0 {
				ratio = spreadOf(r.Ratio, "%.0f %%", 1)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %d |\n", r.Name, spreadOf(r.Rate, "%s", 0), spreadOf(r.P50, "%.2f ms", 1), spreadOf(r.P99, "%.2f ms", 1), ratio, r.Errors)
		}
		fmt.Fprintln(w)
		for _, r := range rows {
			if r.FirstEr != nil {
				fmt.Fprintf(w, "First failure of %s: %v\n\n", r.Name, r.FirstEr)
			}
		}
	}
	if writes != nil {
		fmt.Fprintf(w, "GitHub calls per merged PR: %d PRs submitted at once to a queue of concurrency %d, CI answering in queue order, "+
			"counted until the last test branch is deleted (reconcile interval %s), with GitHub's own write budget "+
			"(80 content-creating requests a minute, 500 an hour: informational surface writes are skipped when it is more than half used).\n\n",
			o.prs, o.concurrency, o.reconcile)
		header, rule := "| figure |", "|---|"
		for _, b := range writes.Builders {
			header += fmt.Sprintf(" %s, without batching | %s, batches of %d | %s, batches of %d landing by fast-forward |", b, b, writesBatch, b, writesBatch)
			rule += "---|---|---|"
		}
		fmt.Fprintln(w, header)
		fmt.Fprintln(w, rule)
		row := func(name string, get func(writeSeries) series, format string) {
			line := "| " + name + " |"
			for i := range writes.Builders {
				line += " " + spreadOf(get(writes.Single[i]), format, 1) + " | " + spreadOf(get(writes.Batched[i]), format, 1) + " | " +
					spreadOf(get(writes.FastForward[i]), format, 1) + " |"
			}
			fmt.Fprintln(w, line)
		}
		row("content-creating calls (every call but GET, installation tokens excluded)", func(s writeSeries) series { return s.Writes }, "%.2f")
		row("GitHub API calls in all", func(s writeSeries) series { return s.Calls }, "%.2f")
		row("git requests (smart HTTP: a fetch or a push is two; no API call, no content-creating request)", func(s writeSeries) series { return s.Git }, "%.2f")
		row("time from the first submission to the last branch deleted (s)", func(s writeSeries) series { return s.Took }, "%.1f")
		fmt.Fprintln(w)
	}
}

// spreadOf formats a series' median and, over several rounds, its
// spread: "1,234 (1,200–1,300)". mode 0 formats integers with thousands
// separators (format must then be "%s").
func spreadOf(s series, format string, mode int) string {
	f := func(v float64) string {
		if mode == 0 {
			return thousands(int64(math.Round(v)))
		}
		return fmt.Sprintf(format, v)
	}
	out := f(s.median())
	if mode == 0 {
		out = fmt.Sprintf(format, out)
	}
	if len(s) > 1 {
		lo, hi := s.spread()
		if mode == 0 {
			out += fmt.Sprintf(" (%s–%s)", thousands(int64(math.Round(lo))), thousands(int64(math.Round(hi))))
		} else {
			out += " (" + strings.TrimSuffix(strings.TrimSuffix(f(lo), " ms"), " %") + "–" + f(hi) + ")"
		}
	}
	return out
}

// thousands formats n with commas between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// ms converts a duration to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// loadAverage reads /proc/loadavg ("" where there is none).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], ", ")
}
