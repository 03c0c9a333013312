package api

import (
	"maps"
	"slices"
)

// Operations lists, sorted, the operation names the API serves as
// /v1/<name>: a bounded set for labelling requests in metrics.
func Operations() []string {
	a, _ := New(nil, nil, nil, Options{}).(*API)
	return slices.Sorted(maps.Keys(a.routes))
}
