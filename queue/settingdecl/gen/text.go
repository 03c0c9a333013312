package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mergequeue/mq/queue/settingdecl"
)

// writer accumulates Go source; format.Source tidies it afterwards.
type writer struct{ strings.Builder }

func (w *writer) f(format string, args ...any) { fmt.Fprintf(w, format, args...) }

// comment writes text as a // comment wrapped at about 76 columns,
// indented by tabs.
func (w *writer) comment(tabs int, text string) {
	indent := strings.Repeat("\t", tabs)
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > 76-4*tabs {
			w.f("%s// %s\n", indent, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		w.f("%s// %s\n", indent, line)
	}
}

// enumConst is the Go constant of an enum setting's wire value v.
func enumConst(s settingdecl.Setting, v string) string {
	for _, e := range s.Enum.Values {
		if e.Wire == v {
			return e.Const
		}
	}
	panic(fmt.Sprintf("%s: %q is not a value (settingdecl.Validate checks this)", s.API, v))
}

// goLiteral is a setting's default as a Go expression in package queue.
func goLiteral(s settingdecl.Setting, v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		if s.Kind == settingdecl.Enum {
			return enumConst(s, x)
		}
		return strconv.Quote(x)
	}
	panic(fmt.Sprintf("%s: no Go literal for %#v", s.API, v))
}

// isZero reports whether a declared default is the zero value.
func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case int:
		return x == 0
	case bool:
		return !x
	case string:
		return x == ""
	}
	return false
}

// rangeText is an Int's range as error messages give it, with the bound
// as a format verb: "between 1 and %d (a week)".
func rangeText(s settingdecl.Setting) string {
	t := fmt.Sprintf("between %d and %%d", s.Min)
	if s.RangeNote != "" {
		t += " (" + s.RangeNote + ")"
	}
	return t
}
