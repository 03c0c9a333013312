package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/mergequeue/mq/queue/sim"
)

// Plot geometry: one panel per preset, three to a row.
const (
	panelW, panelH   = 420, 300
	marginL, marginR = 56, 16
	marginT, marginB = 34, 44
	perRow           = 3
	unstableBand     = 22 // the strip at the top of a panel for policies that fell behind
)

// kindColor is a policy's colour in the plot.
var kindColor = map[sim.Kind]string{
	sim.KindOracle: "#000000", sim.KindSerial: "#8c564b", sim.KindBors: "#9467bd",
	sim.KindGitHub: "#1f77b4", sim.KindZuul: "#ff7f0e", sim.KindOurs: "#2ca02c",
}

// plotSVG draws, for every preset, each policy's median p95 time-to-merge
// (log scale) against its median CI runs per merged PR, the 10th–90th
// percentile ranges as whiskers; a policy that fell behind on most seeds
// sits in the band at the top, at its saturated runs per merge. The output
// depends only on the reports.
func plotSVG(reps []sim.SeedReport) string {
	rows := (len(reps) + perRow - 1) / perRow
	width, height := perRow*panelW, rows*panelH+40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="10">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	for i, rep := range reps {
		plotPanel(&b, rep, (i%perRow)*panelW, (i/perRow)*panelH)
	}
	// Legend.
	x, y := 10, rows*panelH+20
	for _, k := range sim.Kinds {
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, y, kindColor[k], x+8, y+4, k)
		x += 80
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d">median over seeds, whiskers 10th–90th percentile; top band: fell behind (x = saturated runs per merge)</text>`+"\n", x, y+4)
	b.WriteString("</svg>\n")
	return b.String()
}

func plotPanel(b *strings.Builder, rep sim.SeedReport, ox, oy int) {
	x0, x1 := float64(ox+marginL), float64(ox+panelW-marginR)
	yTop, y1 := float64(oy+marginT), float64(oy+panelH-marginB)
	yb := yTop + unstableBand // the finite area starts below the band
	// Axis ranges.
	maxRuns, minP, maxP := 1.0, math.Inf(1), 0.0
	for _, row := range rep.Rows {
		maxRuns = math.Max(maxRuns, finite(row.RunsPerMerge.P90, row.RunsPerMerge.Median))
		if !row.Unstable() {
			minP = math.Min(minP, row.P95.P10)
			maxP = math.Max(maxP, finite(row.P95.P90, row.P95.Median))
		}
	}
	if maxP == 0 {
		minP, maxP = 10, 100
	}
	lo, hi := math.Floor(math.Log10(minP)), math.Ceil(math.Log10(maxP))
	if hi <= lo {
		hi = lo + 1
	}
	maxRuns = math.Ceil(maxRuns)
	sx := func(v float64) float64 { return x0 + (x1-x0)*v/maxRuns }
	sy := func(m float64) float64 { return y1 - (y1-yb)*(math.Log10(m)-lo)/(hi-lo) }
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="12" font-weight="bold">%s</text>`+"\n", ox+marginL, oy+16, rep.Preset.Name)
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#f3f3f3"/>`+"\n", x0, yTop, x1-x0, float64(unstableBand))
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" fill="#666">fell behind</text>`+"\n", x1-60, yTop+14)
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999"/>`+"\n", x0, yTop, x1-x0, y1-yTop)
	for e := lo; e <= hi; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if math.Log10(v) > hi+1e-9 {
				continue
			}
			y := sy(v)
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/><text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n", x0, y, x1, y, x0-4, y+3, v)
		}
	}
	step := math.Max(1, math.Ceil(maxRuns/8))
	for v := 0.0; v <= maxRuns+1e-9; v += step {
		x := sx(v)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/><text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", x, yTop, x, y1, x, y1+14, v)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">CI runs per merged PR</text>`+"\n", (x0+x1)/2, y1+30)
	fmt.Fprintf(b, `<text transform="translate(%d %.1f) rotate(-90)" text-anchor="middle">p95 time-to-merge (min)</text>`+"\n", ox+14, (yb+y1)/2)
	best, _ := rep.BestOurs()
	band := 0
	for _, row := range rep.Rows {
		color := kindColor[row.Kind]
		x := sx(row.RunsPerMerge.Median)
		label := shortLabel(row.Policy)
		if row.Unstable() {
			y := yTop + 6 + float64(band%3)*6
			band++
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="none" stroke="%s"><title>%s: fell behind; %s runs/merge saturated</title></circle>`+"\n",
				x, y, color, row.Policy, sim.FormatSpread(row.RunsPerMerge, "%.2f"))
			continue
		}
		y := sy(row.P95.Median)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.5"/>`+"\n",
			sx(row.RunsPerMerge.P10), y, sx(row.RunsPerMerge.P90), y, color)
		top := yb
		if !math.IsInf(row.P95.P90, 1) {
			top = sy(row.P95.P90)
		}
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.5"/>`+"\n", x, sy(row.P95.P10), x, top, color)
		r := 4
		if row.Policy == best.Policy {
			r = 6
		}
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="%d" fill="%s"><title>%s: p95 %s min, %s runs/merge</title></circle>`+"\n",
			x, y, r, color, row.Policy, sim.FormatSpreadMinutes(row.P95), sim.FormatSpread(row.RunsPerMerge, "%.2f"))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" fill="%s" font-size="9">%s</text>`+"\n", x+6, y-4, color, label)
	}
}

// finite returns v, or fallback when v is infinite or NaN.
func finite(v, fallback float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return fallback
	}
	return v
}

// shortLabel drops "ours(" noise for the plot: "ours(k=12,d=1,opt)" →
// "k=12,d=1,opt".
func shortLabel(policy string) string {
	if s, ok := strings.CutPrefix(policy, "ours("); ok {
		return strings.TrimSuffix(s, ")")
	}
	if i := strings.IndexByte(policy, '('); i > 0 {
		return policy[:i]
	}
	return policy
}
