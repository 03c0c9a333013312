package settingdecl

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Kind is a setting's type on the wire and in Go.
type Kind int

const (
	// Int is a JSON integer (never 2.0 or "2"), a Go int, bounded by Min
	// and Max.
	Int Kind = iota + 1
	// Bool is a JSON boolean.
	Bool
	// String is a JSON string.
	String
	// Enum is a JSON string among Enum.Values: accepted in any case,
	// stored and shown in lower case; in Go a string type of its own.
	Enum
	// List is a JSON array of strings, shown as [] when empty (never
	// null); a write replaces it whole, order kept.
	List
	// NullableList is a JSON array of strings or null: nil (null) and an
	// empty list ([]) are distinct values, both kept and shown as they
	// are. A write of null is no change; Delete names the field that
	// resets it to nil.
	NullableList
	// EmptyList is a JSON array accepted only when empty and always shown
	// as []: a field clients of the hosted API echo back, for a feature
	// this queue does not have. It is in neither queue.Settings nor the
	// stored document.
	EmptyList
)

// Setting declares one queue setting.
type Setting struct {
	// API is the field's name in createQueue, updateQueue and getQueue
	// (and in error messages and docs/api.md).
	API string
	// Field is the Go field in queue.Settings and queue.QueueUpdate (""
	// for an EmptyList).
	Field string
	// Store is the key in the settings document queue/sqlstore stores. Never
	// rename it: rows stored before would lose the value.
	Store string
	// LaterKey marks a key added to the stored document after queues were
	// stored: older rows lack it and decode as the zero value, so the
	// default must be the zero value (Validate checks it).
	LaterKey bool

	Kind Kind
	// Enum is an Enum's Go type and values.
	Enum *EnumType

	// Default is a new queue's value: an int, bool or string (an enum's
	// wire value); nil is the zero value (a list's nil).
	Default any
	// Unset means that the zero value is "not set": getQueue shows
	// Shown's value instead, Validate accepts it besides Min..Max, and a
	// client cannot write it (it could never read it back).
	Unset bool
	// Shown names the method giving the value getQueue shows, of
	// queue.Settings, or of *queue.Queue with the prefix "Queue."; "" is
	// the field itself.
	Shown string
	// DefaultFrom is the API name of the setting whose value at creation
	// is this one's default (this one must be Unset): it is stored at
	// creation (queue.Settings.WithCreationDefaults), and a queue stored
	// before, which still lacks it, has it stored at its next update, so
	// it never moves on its own.
	DefaultFrom string

	// Min and Max bound an Int a client writes.
	Min, Max int
	// MaxConst names the exported constant of package queue that holds
	// Max.
	MaxConst string
	// RangeNote follows the range in errors and docs, e.g. "a week".
	RangeNote string

	// AtLeast is the API name of an Int this Int (when set) must not be
	// below: a rule across fields, checked on the settings as a whole.
	AtLeast string
	// Check names a function of package queue checking a value of the
	// setting on its own, func(<GoType>) error, for what the declaration
	// cannot say (a name's syntax): run on every value written and by
	// Validate (but not on an Unset setting's zero value). Its error is an
	// *InputError naming the field.
	Check string
	// WriteCheck is like Check, but run only on the values written, not by
	// Validate (settings built in code need not pass it).
	WriteCheck string
	// Across names a function of package queue checking the settings as a
	// whole, func(Settings) error, for a rule between this setting and
	// others (a value valid only with another's): run by Validate, so on
	// every write. Its error is an *InputError naming this setting.
	Across string
	// ExampleWith are the other settings (API name to value) a client
	// writes with Example for Across to accept it.
	ExampleWith map[string]any

	// Delete is a NullableList's request-only boolean field that resets
	// it to nil; DeleteRule documents it.
	Delete, DeleteRule string
	// Refusal is an EmptyList's error after "invalid field <API>: " when a
	// client sends elements; %d is their number.
	Refusal string

	// Doc is the Go doc comment of the field in queue.Settings, starting
	// with the field's name.
	Doc string
	// DefaultDoc is docs/api.md's default when it is not Default itself
	// (markdown).
	DefaultDoc string
	// Rule is docs/api.md's rule beyond the type, range and values
	// (markdown).
	Rule string

	// Example is a valid value a client may write, not the default where
	// there is another: an int, bool, string or []string. Tests write it
	// and read it back.
	Example any
	// SimFixed says why the randomized invariant suite (queue/sim) does
	// not draw the setting; "" means it draws it. A test checks both.
	SimFixed string
}

// EnumType is an Enum setting's Go type in package queue and its values.
type EnumType struct {
	// Name is the Go type, e.g. "Mode".
	Name string
	// Doc is its doc comment, starting with Name.
	Doc    string
	Values []EnumValue
}

// EnumValue is one value of an EnumType.
type EnumValue struct {
	// Const is the Go constant, e.g. "ModeSingle".
	Const string
	// Wire is the value on the wire and in storage, in lower case.
	Wire string
}

// GoType is the setting's type in queue.Settings, as package queue spells
// it ("" for an EmptyList).
func (s Setting) GoType() string {
	switch s.Kind {
	case Int:
		return "int"
	case Bool:
		return "bool"
	case String:
		return "string"
	case Enum:
		return s.Enum.Name
	case List, NullableList:
		return "[]string"
	}
	return ""
}

// JSONType is the setting's JSON type as docs and shape tests name it.
func (s Setting) JSONType() string {
	switch s.Kind {
	case Int:
		return "integer"
	case Bool:
		return "boolean"
	case String, Enum:
		return "string"
	}
	return "array"
}

// DeleteField is the Go name of a NullableList's Delete field.
func (s Setting) DeleteField() string {
	if s.Delete == "" {
		return ""
	}
	return strings.ToUpper(s.Delete[:1]) + s.Delete[1:]
}

// Wires are an Enum's wire values, in order.
func (s Setting) Wires() []string {
	if s.Enum == nil {
		return nil
	}
	out := make([]string, len(s.Enum.Values))
	for i, v := range s.Enum.Values {
		out[i] = v.Wire
	}
	return out
}

// ByAPI returns the setting of All named api on the wire.
func ByAPI(api string) (Setting, bool) {
	for _, s := range All {
		if s.API == api {
			return s, true
		}
	}
	return Setting{}, false
}

var (
	apiName   = regexp.MustCompile(`^[a-z][A-Za-z]*$`)
	goName    = regexp.MustCompile(`^[A-Z][A-Za-z]*$`)
	storeName = regexp.MustCompile(`^[a-z][a-z_]*$`)
	wireName  = regexp.MustCompile(`^[a-z][a-z_]*$`)
)

// Validate checks a declaration for what the generator and the tests
// rely on: unique names of the right form, the fields each kind needs,
// defaults and examples of the declared type within the declared bounds,
// and zero defaults for keys added later.
func Validate(all []Setting) error {
	var errs []error
	seen := map[string]string{}
	bounds := map[string]int{}
	unique := func(kind, name, api string) {
		if name == "" {
			return
		}
		if prev, ok := seen[kind+" "+name]; ok {
			errs = append(errs, fmt.Errorf("%s: %s %q is also %s's", api, kind, name, prev))
		}
		seen[kind+" "+name] = api
	}
	for _, s := range all {
		unique("API name", s.API, s.API)
		unique("API name", s.Delete, s.API)
		unique("Go field", s.Field, s.API)
		unique("Go field", s.DeleteField(), s.API)
		unique("stored key", s.Store, s.API)
		if s.Enum != nil {
			unique("enum type", s.Enum.Name, s.API)
		}
		if bound, ok := bounds[s.MaxConst]; ok && bound != s.Max {
			errs = append(errs, fmt.Errorf("%s: %s is %d, but %d for another setting", s.API, s.MaxConst, s.Max, bound))
		}
		if s.MaxConst != "" {
			bounds[s.MaxConst] = s.Max
		}
		if err := validateOne(s, all); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.API, err))
		}
	}
	return errors.Join(errs...)
}

func validateOne(s Setting, all []Setting) error {
	switch {
	case !apiName.MatchString(s.API):
		return fmt.Errorf("the API name %q is not lowerCamelCase", s.API)
	case s.Kind < Int || s.Kind > EmptyList:
		return fmt.Errorf("unknown kind %d", s.Kind)
	case s.Doc == "" && s.Kind != EmptyList:
		return errors.New("no doc (Doc)")
	case s.Example == nil && s.Kind != EmptyList:
		return errors.New("no example value (Example)")
	}
	if s.Kind == EmptyList {
		if s.Field != "" || s.Store != "" || s.Refusal == "" || s.Default != nil || s.Unset {
			return errors.New("an EmptyList has a Refusal and no Field, Store, Default or Unset")
		}
		return nil
	}
	switch {
	case !goName.MatchString(s.Field):
		return fmt.Errorf("the Go field %q is not exported CamelCase", s.Field)
	case !storeName.MatchString(s.Store):
		return fmt.Errorf("stored key %q is not snake_case", s.Store)
	case !strings.HasPrefix(s.Doc, s.Field+" "):
		return fmt.Errorf("the doc must start with %q", s.Field+" ")
	case (s.Kind == Enum) != (s.Enum != nil):
		return errors.New("an Enum, and only an Enum, has an EnumType")
	case (s.Kind == Int) != (s.MaxConst != ""):
		return errors.New("an Int, and only an Int, has a MaxConst")
	case s.Kind == Int && (s.Min > s.Max || s.Min < 0):
		return fmt.Errorf("range %d..%d", s.Min, s.Max)
	case (s.Delete != "") != (s.Kind == NullableList) || (s.Delete != "") != (s.DeleteRule != ""):
		return errors.New("a NullableList, and only one, has Delete and DeleteRule")
	case s.Unset && s.Shown == "":
		return errors.New("an Unset setting names the method that shows it (Shown)")
	case s.Unset && s.Default != nil:
		return errors.New("an Unset setting's default is the zero value")
	case s.Unset && s.Kind == Int && s.Min < 1:
		return errors.New("an Unset Int's range excludes 0")
	case s.Unset && s.DefaultDoc == "":
		return errors.New("an Unset setting documents its default (DefaultDoc)")
	case s.LaterKey && s.Default != nil:
		return errors.New("a key added later has the zero value as its default: older rows decode as the zero value")
	}
	if s.Enum != nil {
		if !goName.MatchString(s.Enum.Name) || !strings.HasPrefix(s.Enum.Doc, s.Enum.Name+" ") || len(s.Enum.Values) == 0 {
			return errors.New("an EnumType has a Go name, a Doc starting with it, and values")
		}
		for _, v := range s.Enum.Values {
			if !goName.MatchString(v.Const) || !wireName.MatchString(v.Wire) {
				return fmt.Errorf("enum value %s = %q: not a Go constant and a lower-case wire value", v.Const, v.Wire)
			}
		}
	}
	if s.AtLeast != "" {
		other, ok := findAPI(all, s.AtLeast)
		if !ok || other.Kind != Int || s.Kind != Int {
			return fmt.Errorf("atLeast %q: an Int may only be at least another Int", s.AtLeast)
		}
	}
	for api := range s.ExampleWith {
		if _, ok := findAPI(all, api); !ok || s.Across == "" {
			return fmt.Errorf("exampleWith %q: must name another setting, for a setting with a rule across settings (Across)", api)
		}
	}
	if s.DefaultFrom != "" {
		from, ok := findAPI(all, s.DefaultFrom)
		if !ok || from.Kind != s.Kind || !s.Unset || from.DefaultFrom != "" {
			return fmt.Errorf("defaultFrom %q: must name another setting of the same kind, itself without DefaultFrom, and this one must be Unset", s.DefaultFrom)
		}
	}
	if s.Default != nil {
		if err := s.checkValue(s.Default); err != nil {
			return fmt.Errorf("default: %w", err)
		}
	}
	if err := s.checkValue(s.Example); err != nil {
		return fmt.Errorf("example: %w", err)
	}
	return nil
}

func findAPI(all []Setting, api string) (Setting, bool) {
	i := slices.IndexFunc(all, func(s Setting) bool { return s.API == api })
	if i < 0 {
		return Setting{}, false
	}
	return all[i], true
}

// checkValue checks that v is of the setting's Go kind and within its
// declared bounds or values.
func (s Setting) checkValue(v any) error {
	want := map[Kind]reflect.Kind{Int: reflect.Int, Bool: reflect.Bool, String: reflect.String, Enum: reflect.String,
		List: reflect.Slice, NullableList: reflect.Slice}[s.Kind]
	if reflect.ValueOf(v).Kind() != want {
		return fmt.Errorf("%#v is not a %s", v, want)
	}
	switch x := v.(type) {
	case int:
		if x < s.Min || x > s.Max {
			return fmt.Errorf("%d is outside %d..%d", x, s.Min, s.Max)
		}
	case string:
		if s.Kind == Enum && !slices.Contains(s.Wires(), x) {
			return fmt.Errorf("%q is not one of %v", x, s.Wires())
		}
	case []string:
	default:
		if want == reflect.Slice {
			return fmt.Errorf("%#v is not a []string", v)
		}
	}
	return nil
}
