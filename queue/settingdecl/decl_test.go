package settingdecl

import (
	"strings"
	"testing"
)

func TestAllIsValid(t *testing.T) {
	t.Parallel()
	if err := Validate(All); err != nil {
		t.Fatal(err)
	}
}

// Validate refuses the declarations the generator could not turn into
// working code, or that would break stored rows.
func TestValidateRefuses(t *testing.T) {
	t.Parallel()
	intSetting := Setting{API: "fooMinutes", Field: "FooMinutes", Store: "foo_minutes", Kind: Int, Min: 0, Max: 10,
		MaxConst: "MaxFooMinutes", Doc: "FooMinutes is a test setting.", Example: 3}
	tests := []struct {
		name string
		edit func(s *Setting)
		want string
	}{
		{"a later key with a default other than zero", func(s *Setting) { s.LaterKey, s.Default = true, 5 }, "older rows decode as the zero value"},
		{"an example out of range", func(s *Setting) { s.Example = 11 }, "outside 0..10"},
		{"a default of another type", func(s *Setting) { s.Default = "5" }, "is not a int"},
		{"an unset setting without its shown value", func(s *Setting) { s.Unset, s.Min, s.DefaultDoc = true, 1, "x" }, "Shown"},
		{"an unset int whose range holds 0", func(s *Setting) { s.Unset, s.Shown, s.DefaultDoc = true, "EffectiveFoo", "x" }, "excludes 0"},
		{"an API name in the wrong case", func(s *Setting) { s.API = "FooMinutes" }, "lowerCamelCase"},
		{"a stored key in the wrong case", func(s *Setting) { s.Store = "fooMinutes" }, "snake_case"},
		{"no example", func(s *Setting) { s.Example = nil }, "no example"},
		{"a doc not naming the field", func(s *Setting) { s.Doc = "Foo." }, "must start with"},
		{"an int without its bound's name", func(s *Setting) { s.MaxConst = "" }, "MaxConst"},
		{"a default from an unknown setting", func(s *Setting) { s.Unset, s.Min, s.Shown, s.DefaultDoc, s.DefaultFrom = true, 1, "E", "x", "nope" }, "defaultFrom"},
		{"at least a setting of another kind", func(s *Setting) { s.AtLeast = "mode" }, "atLeast"},
		{"a stored key twice", func(s *Setting) { s.Store = "concurrency" }, `stored key "concurrency"`},
		{"an API name twice", func(s *Setting) { s.API = "batch" }, `API name "batch"`},
		{"a bound with two values", func(s *Setting) { s.MaxConst = "MaxConcurrency" }, "MaxConcurrency is 10"},
		{"an enum value not in lower case", func(s *Setting) {
			s.Kind, s.MaxConst, s.Example = Enum, "", "on"
			s.Enum = &EnumType{Name: "Foo", Doc: "Foo is a test.", Values: []EnumValue{{"FooOn", "ON"}}}
		}, "lower-case wire value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := intSetting
			tt.edit(&s)
			err := Validate(append(append([]Setting{}, All...), s))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	s := intSetting
	if err := Validate(append(append([]Setting{}, All...), s)); err != nil {
		t.Fatalf("the valid setting the cases start from is refused: %v", err)
	}
}
