package main

import (
	"context"
	"fmt"
	"time"
)

// slice is how long the figure and the empty handler take turns: each
// figure is measured in slices alternating with slices of the empty
// handler at the same number of clients, so that both see the same
// machine (other processes' load drifts over seconds, not quarter
// seconds), and its ratio is taken over those slices alone.
const slice = 250 * time.Millisecond

// measurement collects the figures over the rounds.
type measurement struct {
	o     options
	empty *emptyServer
	// order lists the figures' names in the order first measured; the
	// empty handler's rows come first, one per client count.
	order      []string
	emptyOrder []string
	by         map[string]*loadRow
}

func newMeasurement(o options, empty *emptyServer) *measurement {
	return &measurement{o: o, empty: empty, by: map[string]*loadRow{}}
}

// row returns the row of name, creating it in order.
func (m *measurement) row(name string, order *[]string) *loadRow {
	r, ok := m.by[name]
	if !ok {
		r = &loadRow{Name: name}
		m.by[name] = r
		*order = append(*order, name)
	}
	return r
}

// measure measures f once (one round): in slices alternating with the
// empty handler at f's number of clients, for the options' duration
// each, after a warm-up of both. It then runs f's after.
func (m *measurement) measure(ctx context.Context, f figure) error {
	ef := emptyFigure(m.empty, f.Clients)
	emptyClient, figClient := newClient(f.Clients), newClient(f.Clients)
	defer emptyClient.CloseIdleConnections()
	defer figClient.CloseIdleConnections()
	warm := m.o.warmup()
	generate(ctx, emptyClient, f.Clients, warm, 0, ef.req)
	generate(ctx, figClient, f.Clients, warm, 0, f.req)
	var es, fs sample
	n := max(int((m.o.duration+slice-1)/slice), 1)
	d := m.o.duration / time.Duration(n)
	for range n {
		es.add(generate(ctx, emptyClient, f.Clients, 0, d, ef.req))
		fs.add(generate(ctx, figClient, f.Clients, 0, d, f.req))
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	m.record(m.row(ef.Name, &m.emptyOrder), es, 0)
	m.record(m.row(f.Name, &m.order), fs, es.PerSecond())
	if f.after != nil {
		return f.after(ctx)
	}
	return nil
}

// record adds one round's sample to r; emptyRate > 0 adds its ratio.
func (m *measurement) record(r *loadRow, s sample, emptyRate float64) {
	r.Rate = append(r.Rate, s.PerSecond())
	r.P50 = append(r.P50, ms(s.Percentile(50)))
	r.P99 = append(r.P99, ms(s.Percentile(99)))
	r.Errors += s.Errors
	if r.FirstEr == nil && s.FirstErr != nil {
		r.FirstEr = fmt.Errorf("%w", s.FirstErr)
	}
	if emptyRate > 0 {
		r.Ratio = append(r.Ratio, 100*s.PerSecond()/emptyRate)
	}
}

// rows are the empty handler's rows, then the figures', in order.
func (m *measurement) rows() []loadRow {
	var out []loadRow
	for _, n := range append(append([]string{}, m.emptyOrder...), m.order...) {
		out = append(out, *m.by[n])
	}
	return out
}
