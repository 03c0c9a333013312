package sqlstore

import (
	"reflect"
	"testing"
)

// BoolsAsIntegers turns bools into 0 and 1, leaves the rest, and does not
// change its argument.
func TestBoolsAsIntegers(t *testing.T) {
	t.Parallel()
	in := []any{true, "x", false, int64(7), nil}
	got := BoolsAsIntegers(in)
	if want := []any{int64(1), "x", int64(0), int64(7), nil}; !reflect.DeepEqual(got, want) {
		t.Errorf("BoolsAsIntegers = %#v, want %#v", got, want)
	}
	if in[0] != true || in[2] != false {
		t.Errorf("the arguments were changed in place: %#v", in)
	}
	if plain := []any{"a", 1}; !reflect.DeepEqual(BoolsAsIntegers(plain), plain) {
		t.Errorf("arguments without bools changed")
	}
}
