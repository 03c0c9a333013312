package changes

import (
	"sync"
	"testing"
)

func TestVersions(t *testing.T) {
	t.Parallel()
	var v Versions
	a0, b0 := v.Version(1), v.Version(2)
	v.Changed(1)
	if v.Version(1) == a0 || v.Version(2) != b0 {
		t.Fatalf("a write to queue 1 moved 1 %d→%d and 2 %d→%d", a0, v.Version(1), b0, v.Version(2))
	}
	a1, b1 := v.Version(1), v.Version(2)
	v.Changed(0)
	if v.Version(1) <= a1 || v.Version(2) <= b1 || v.Version(3) == 0 {
		t.Fatalf("a write to every queue did not move them all: %d %d %d", v.Version(1), v.Version(2), v.Version(3))
	}
	// Concurrent writers: every version only grows, and all writes count.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				v.Changed(5)
			}
		}()
	}
	last := v.Version(5)
	for range 1000 {
		if n := v.Version(5); n < last {
			t.Fatalf("version went back: %d after %d", n, last)
		} else {
			last = n
		}
	}
	wg.Wait()
	if got := v.Version(5); got != v.Version(0)+8000 {
		t.Errorf("version of queue 5 = %d, want every queue's %d + 8000", got, v.Version(0))
	}
}
