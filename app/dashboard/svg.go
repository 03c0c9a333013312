package dashboard

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// Chart geometry (SVG user units).
const (
	svgW, svgH     = 720.0, 160.0
	svgLeft, svgLo = 40.0, 20.0 // room for the y labels and the x labels
)

// niceMax rounds a chart's top up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// svgFrame opens a chart: axes, the top value and the first and last hour.
func svgFrame(b *strings.Builder, hours []hourStats, top float64, unit string) {
	fmt.Fprintf(b, `<svg class="chart" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img">`, svgW, svgH, svgW, svgH)
	fmt.Fprintf(b, `<line x1="%.0f" y1="0" x2="%.0f" y2="%.0f" stroke="#d0d7de"/>`, svgLeft, svgLeft, svgH-svgLo)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#d0d7de"/>`, svgLeft, svgH-svgLo, svgW, svgH-svgLo)
	fmt.Fprintf(b, `<text x="2" y="10">%g</text><text x="2" y="%.0f">0 %s</text>`, top, svgH-svgLo, template.HTMLEscapeString(unit))
	if len(hours) > 0 {
		fmt.Fprintf(b, `<text x="%.0f" y="%.0f">%s</text>`, svgLeft, svgH-4, hours[0].Start.UTC().Format("01-02 15:04"))
		fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="end">%s</text>`, svgW-2, svgH-4,
			hours[len(hours)-1].Start.UTC().Format("01-02 15:04"))
	}
}

// lineChart draws p50 (solid) and p90 (dashed) per hour. With gaps, an
// hour whose value is zero had nothing to measure: the line breaks there
// instead of dropping to zero.
func lineChart(hours []hourStats, unit string, gaps bool, val func(hourStats) [2]float64) template.HTML {
	top := 0.0
	for _, h := range hours {
		top = math.Max(top, val(h)[1])
	}
	top = niceMax(top)
	var b strings.Builder
	svgFrame(&b, hours, top, unit)
	step := (svgW - svgLeft) / float64(max(len(hours), 1))
	for k, style := range []string{`stroke="#0969da" stroke-width="2"`, `stroke="#bf8700" stroke-width="1.5" stroke-dasharray="4 3"`} {
		var pts []string
		flush := func() {
			switch len(pts) {
			case 0:
			case 1:
				x, y, _ := strings.Cut(pts[0], ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2" fill="none" %s/>`, x, y, style)
			default:
				fmt.Fprintf(&b, `<polyline fill="none" %s points="%s"/>`, style, strings.Join(pts, " "))
			}
			pts = pts[:0]
		}
		for i, h := range hours {
			v := val(h)[k]
			if gaps && v == 0 {
				flush()
				continue
			}
			x := svgLeft + step*(float64(i)+0.5)
			y := (svgH - svgLo) * (1 - v/top)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		flush()
	}
	for i, h := range hours {
		v := val(h)
		fmt.Fprintf(&b, `<rect x="%.1f" y="0" width="%.1f" height="%.0f" fill="transparent"><title>%s: p50 %.4g, p90 %.4g %s</title></rect>`,
			svgLeft+step*float64(i), step, svgH-svgLo, h.Start.UTC().Format("2006-01-02 15:04"), v[0], v[1], template.HTMLEscapeString(unit))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // built from numbers and escaped text only
}

// barChart draws merges (green) and failures (red) per hour, side by side.
func barChart(hours []hourStats) template.HTML {
	top := 0
	for _, h := range hours {
		top = max(top, h.Merges, h.Failures)
	}
	ftop := niceMax(float64(top))
	var b strings.Builder
	svgFrame(&b, hours, ftop, "per hour")
	step := (svgW - svgLeft) / float64(max(len(hours), 1))
	for i, h := range hours {
		x := svgLeft + step*float64(i)
		for k, bar := range []struct {
			n    int
			fill string
		}{{h.Merges, "#1a7f37"}, {h.Failures, "#cf222e"}} {
			ht := (svgH - svgLo) * float64(bar.n) / ftop
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`,
				x+step*float64(k)/2, svgH-svgLo-ht, step/2, ht, bar.fill)
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="0" width="%.1f" height="%.0f" fill="transparent"><title>%s: %d merged, %d failed</title></rect>`,
			x, step, svgH-svgLo, h.Start.UTC().Format("2006-01-02 15:04"), h.Merges, h.Failures)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // built from numbers and escaped text only
}
