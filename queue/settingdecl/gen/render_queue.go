package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mergequeue/mq/queue/settingdecl"
)

// renderQueue is queue/settings_gen.go: the bounds, the enum types,
// Settings, DefaultSettings, QueueUpdate, ApplySettings and Validate.
func renderQueue(all []settingdecl.Setting) string {
	w := &writer{}
	w.f("package queue\n\nimport \"slices\"\n\n")
	renderBounds(w, all)
	renderEnums(w, all)
	renderSettings(w, all)
	renderUpdate(w, all)
	renderApply(w, all)
	renderValidate(w, all)
	return w.String()
}

// stored are the settings with a Go field (all but EmptyLists).
func stored(all []settingdecl.Setting) []settingdecl.Setting {
	var out []settingdecl.Setting
	for _, s := range all {
		if s.Field != "" {
			out = append(out, s)
		}
	}
	return out
}

func renderBounds(w *writer, all []settingdecl.Setting) {
	w.comment(0, "Upper bounds of the numeric settings (Validate). Each is far above any useful value and far below "+
		"what would overflow a time.Duration (about 292 years) or make a loop over the value expensive: a setting "+
		"such as notReadyTimeoutHours 2562048 would otherwise wrap hours × time.Hour into a negative duration and "+
		"cancel every waiting entry at once.")
	w.f("const (\n")
	var names []string
	users := map[string][]string{}
	notes := map[string]string{}
	values := map[string]int{}
	for _, s := range all {
		if s.MaxConst == "" {
			continue
		}
		if !slices.Contains(names, s.MaxConst) {
			names = append(names, s.MaxConst)
		}
		users[s.MaxConst] = append(users[s.MaxConst], s.API)
		values[s.MaxConst] = s.Max
		if s.RangeNote != "" {
			notes[s.MaxConst] = ": " + s.RangeNote
		}
	}
	for _, n := range names {
		w.comment(1, fmt.Sprintf("%s bounds %s%s.", n, strings.Join(users[n], " and "), notes[n]))
		w.f("\t%s = %d\n", n, values[n])
	}
	w.f(")\n\n")
}

func renderEnums(w *writer, all []settingdecl.Setting) {
	for _, s := range all {
		if s.Enum == nil {
			continue
		}
		w.comment(0, s.Enum.Doc)
		w.f("type %s string\n\n", s.Enum.Name)
		w.f("// The values of %s (the %s setting).\nconst (\n", s.Enum.Name, s.API)
		for _, v := range s.Enum.Values {
			w.f("\t%s %s = %q\n", v.Const, s.Enum.Name, v.Wire)
		}
		w.f(")\n\n")
	}
}

func renderSettings(w *writer, all []settingdecl.Setting) {
	w.comment(0, "Settings are a queue's configuration (seed §2.3 plus SPEC §7 extensions): one field per "+
		"setting of queue/settingdecl, in the order getQueue shows them. An Unset setting's zero value means "+
		"its default, shown by its Effective… method.")
	w.f("type Settings struct {\n")
	for _, s := range stored(all) {
		w.comment(1, s.Doc)
		w.f("\t%s %s\n", s.Field, s.GoType())
	}
	w.f("}\n\n")

	w.f("// DefaultSettings are the settings of a new queue (SPEC §7); the others are\n// their zero value.\n")
	w.f("func DefaultSettings() Settings {\n\treturn Settings{\n")
	for _, s := range stored(all) {
		if !isZero(s.Default) {
			w.f("\t\t%s: %s,\n", s.Field, goLiteral(s, s.Default))
		}
	}
	w.f("\t}\n}\n\n")

	w.f("// Clone returns s with its own copy of every list (nil stays nil, empty\n// stays empty).\n")
	w.f("func (s Settings) Clone() Settings {\n")
	for _, s := range stored(all) {
		if s.Kind == settingdecl.List || s.Kind == settingdecl.NullableList {
			w.f("\ts.%[1]s = slices.Clone(s.%[1]s)\n", s.Field)
		}
	}
	w.f("\treturn s\n}\n\n")

	w.comment(0, "WithCreationDefaults returns s with the defaults a queue stores when it is created: an unset "+
		"setting whose default is another's value at creation takes that value, so it never follows the other "+
		"later. The service applies it at creation, and to a queue stored before (whose setting is still unset) "+
		"before each update, so such a queue keeps the value it showed.")
	w.f("func (s Settings) WithCreationDefaults() Settings {\n")
	for _, s := range stored(all) {
		if s.DefaultFrom != "" {
			from, _ := settingdecl.ByAPI(s.DefaultFrom)
			w.f("\tif s.%[1]s == 0 {\n\t\ts.%[1]s = s.%[2]s\n\t}\n", s.Field, from.Field)
		}
	}
	w.f("\treturn s\n}\n\n")
}

func renderUpdate(w *writer, all []settingdecl.Setting) {
	w.comment(0, "QueueUpdate is a partial change to a queue (createQueue, updateQueue): a nil field is left as "+
		"it is, and a value equal to the current one is not a change. Enum fields may hold any case; "+
		"ApplySettings stores their canonical (lower-case) value. A list replaces the current one whole.")
	w.f("type QueueUpdate struct {\n")
	w.comment(1, "State is running, paused or draining; switching_modes is accepted only when it is the current "+
		"state (a client echoing what it read).")
	w.f("\tState *QueueState\n")
	for _, s := range stored(all) {
		switch {
		case s.API == "mode":
			w.comment(1, "Mode changes at once when no run is testing, else the queue enters switching_modes until "+
				"the runs in progress are done (the service decides; ApplySettings applies it directly).")
		case s.Kind == settingdecl.NullableList:
			w.comment(1, fmt.Sprintf("%s, when non-nil, replaces the current list (an empty slice is kept apart from nil).", s.Field))
		}
		w.f("\t%s *%s\n", s.Field, s.GoType())
		if s.Delete != "" {
			w.comment(1, fmt.Sprintf("%s resets %s to nil; it wins over %s.", s.DeleteField(), s.Field, s.Field))
			w.f("\t%s bool\n", s.DeleteField())
		}
	}
	w.f("}\n\n")
}

func renderApply(w *writer, all []settingdecl.Setting) {
	w.comment(0, "CheckFields checks each field u writes on its own: an enum's value (in any case), an integer's "+
		"range, a name's rules; a client cannot write an unset setting's zero value, which it could never read "+
		"back. The error is an *InputError naming the field. ApplySettings runs it; a caller may run it first to "+
		"refuse a bad request before loading the queue.")
	w.f("func (u QueueUpdate) CheckFields() error {\n")
	for _, s := range stored(all) {
		f := s.Field
		var body writer
		switch s.Kind {
		case settingdecl.Int:
			body.f("\tif v := *u.%s; v < %d || v > %s {\n\t\treturn Inputf(%q, %s, v)\n\t}\n",
				f, s.Min, s.MaxConst, s.API+" must be "+rangeText(s)+", got %d", s.MaxConst)
		case settingdecl.Enum:
			body.f("\tif _, err := ParseEnum(%q, string(*u.%s), %s); err != nil {\n\t\treturn &InputError{Msg: err.Error()}\n\t}\n",
				s.API, f, enumConsts(s))
		case settingdecl.String:
			if s.Unset {
				body.f("\tif *u.%s == \"\" {\n\t\treturn Inputf(%q, Settings{}.%s())\n\t}\n",
					f, "invalid field "+s.API+": must not be empty (the default is %q)", s.Shown)
			}
		}
		for _, check := range []string{s.Check, s.WriteCheck} {
			if check != "" {
				body.f("\tif err := %s(*u.%s); err != nil {\n\t\treturn err\n\t}\n", check, f)
			}
		}
		if body.Len() > 0 {
			w.f("\tif u.%s != nil {\n%s\t}\n", f, body.String())
		}
	}
	w.f("\treturn nil\n}\n\n")

	w.comment(0, "ApplySettings returns s changed by every settings field of u (Mode included, applied directly), "+
		"enums in their canonical (lower-case) form, after CheckFields and then Validate on the result; the "+
		"error is an *InputError naming the field.")
	w.f("func (u QueueUpdate) ApplySettings(s Settings) (Settings, error) {\n")
	w.f("\tif err := u.CheckFields(); err != nil {\n\t\treturn s, err\n\t}\n")
	for _, s := range stored(all) {
		f := s.Field
		switch s.Kind {
		case settingdecl.Enum:
			w.f("\tif u.%s != nil {\n\t\ts.%s, _ = ParseEnum(%q, string(*u.%s), %s)\n\t}\n", f, f, s.API, f, enumConsts(s))
		case settingdecl.List:
			w.f("\tif u.%[1]s != nil {\n\t\ts.%[1]s = append([]string{}, (*u.%[1]s)...)\n\t}\n", f)
		case settingdecl.NullableList:
			w.f("\tswitch {\n\tcase u.%s:\n\t\ts.%s = nil\n", s.DeleteField(), f)
			w.f("\tcase u.%[1]s != nil:\n\t\ts.%[1]s = append([]string{}, (*u.%[1]s)...)\n\t}\n", f)
		default:
			w.f("\tif u.%[1]s != nil {\n\t\ts.%[1]s = *u.%[1]s\n\t}\n", f)
		}
	}
	w.f("\tif err := s.Validate(); err != nil {\n\t\treturn s, err\n\t}\n")
	w.f("\treturn s, nil\n}\n\n")
}

// enumConsts are an Enum's Go constants, as arguments.
func enumConsts(s settingdecl.Setting) string {
	consts := make([]string, len(s.Enum.Values))
	for i, v := range s.Enum.Values {
		consts[i] = v.Const
	}
	return strings.Join(consts, ", ")
}

func renderValidate(w *writer, all []settingdecl.Setting) {
	w.comment(0, "Validate checks settings against their declaration (queue/settingdecl): ranges, enum values, "+
		"each setting's Check and the rules across fields; the error is an *InputError naming the field. An "+
		"unset setting's zero value is valid.")
	w.f("func (s Settings) Validate() error {\n")
	for _, s := range stored(all) {
		f := s.Field
		var body writer
		switch s.Kind {
		case settingdecl.Int:
			body.f("\tif s.%s < %d || s.%s > %s {\n\t\treturn Inputf(%q, %s, s.%s)\n\t}\n",
				f, s.Min, f, s.MaxConst, s.API+" must be "+rangeText(s)+", got %d", s.MaxConst, f)
			if s.AtLeast != "" {
				other, _ := settingdecl.ByAPI(s.AtLeast)
				body.f("\tif s.%s < s.%s {\n\t\treturn Inputf(%q)\n\t}\n", f, other.Field, s.API+" must be at least "+s.AtLeast)
			}
		case settingdecl.Enum:
			body.f("\tif _, err := ParseEnum(%q, string(s.%s), %s); err != nil {\n\t\treturn &InputError{Msg: err.Error()}\n\t}\n",
				s.API, f, enumConsts(s))
		}
		if s.Check != "" {
			body.f("\tif err := %s(s.%s); err != nil {\n\t\treturn err\n\t}\n", s.Check, f)
		}
		if s.Across != "" {
			body.f("\tif err := %s(s); err != nil {\n\t\treturn err\n\t}\n", s.Across)
		}
		switch {
		case body.Len() == 0:
		case s.Unset:
			w.f("\tif %s {\n%s\t}\n", nonZeroTest("s."+f, s.Kind), body.String())
		default:
			w.f("%s", body.String())
		}
	}
	w.f("\treturn nil\n}\n")
}

// nonZeroTest is a Go condition true when expr does not hold the zero
// value of kind.
func nonZeroTest(expr string, kind settingdecl.Kind) string {
	if kind == settingdecl.Int {
		return expr + " != 0"
	}
	return expr + ` != ""`
}
