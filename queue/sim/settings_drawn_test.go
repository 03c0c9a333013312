package sim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue/settingdecl"
)

// The randomized invariant suite draws every setting the declaration says
// it draws (SimFixed empty), and leaves at its default every setting the
// declaration says it does not: a new setting fails here until the suite
// draws it or the declaration says why not.
func TestRandomSettingsFollowTheDeclaration(t *testing.T) {
	t.Parallel()
	seen := map[string]map[string]bool{}
	for seed := uint64(1); seed <= 500; seed++ {
		d := &Driver{rng: rand.New(rand.NewPCG(seed, 0x6d71696e76))}
		s := reflect.ValueOf(d.randomSettings([]string{"ci", "lint"}))
		for _, decl := range settingdecl.All {
			if decl.Field == "" {
				continue // not a Go setting (a field accepted only empty)
			}
			if seen[decl.API] == nil {
				seen[decl.API] = map[string]bool{}
			}
			seen[decl.API][fmt.Sprintf("%#v", s.FieldByName(decl.Field).Interface())] = true
		}
	}
	for _, decl := range settingdecl.All {
		if decl.Field == "" {
			continue
		}
		values := len(seen[decl.API])
		switch {
		case decl.SimFixed == "" && values < 2:
			t.Errorf("%s: the suite never varies it; draw it in randomSettings or say why not (SimFixed)", decl.API)
		case decl.SimFixed != "" && values > 1:
			t.Errorf("%s: the suite draws it, but the declaration says it does not (%s)", decl.API, decl.SimFixed)
		}
	}
}
