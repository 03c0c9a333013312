package sim

import (
	"reflect"
	"testing"
	"time"
)

func TestSimRunsEventsInTimeThenSchedulingOrder(t *testing.T) {
	t.Parallel()
	s := NewSim()
	var got []string
	log := func(name string) func() { return func() { got = append(got, name) } }
	s.At(2*time.Minute, log("b1"))
	s.At(time.Minute, log("a"))
	s.At(2*time.Minute, log("b2"))
	cancelled := s.At(90*time.Second, log("cancelled"))
	s.At(2*time.Minute, func() {
		got = append(got, "b3")
		s.After(0, log("b4")) // same instant, after everything already due
		s.At(0, log("b5"))    // the past runs now, after b4
	})
	s.Cancel(cancelled)
	s.Cancel(cancelled)
	for s.Step() {
	}
	want := []string{"a", "b1", "b2", "b3", "b4", "b5"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if s.Elapsed() != 2*time.Minute || !s.Now().Equal(Epoch.Add(2*time.Minute)) {
		t.Errorf("clock at %v, want 2m", s.Elapsed())
	}
	if s.Steps() != 6 || s.Pending() != 0 {
		t.Errorf("steps %d pending %d, want 6 and 0", s.Steps(), s.Pending())
	}
}

func TestSimRunUntil(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		limit    time.Duration
		stopAt   int
		wantRan  int
		wantStop bool
	}{
		{"limit stops before later events", 3 * time.Minute, 0, 3, false},
		{"stop condition ends early", time.Hour, 2, 2, true},
		{"everything runs", time.Hour, 0, 5, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewSim()
			ran := 0
			for i := 1; i <= 5; i++ {
				s.At(time.Duration(i)*time.Minute, func() { ran++ })
			}
			stopped := s.RunUntil(tc.limit, func() bool { return tc.stopAt > 0 && ran >= tc.stopAt })
			if ran != tc.wantRan || stopped != tc.wantStop {
				t.Errorf("ran %d stopped %v, want %d %v", ran, stopped, tc.wantRan, tc.wantStop)
			}
		})
	}
}
