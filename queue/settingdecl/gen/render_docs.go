package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mergequeue/mq/queue/settingdecl"
)

// docsPath is the API reference whose settings table is generated.
const docsPath = "docs/api.md"

// The markers around the generated table in docs/api.md.
const (
	tableStart = "<!-- settings table: generated from queue/settingdecl by go generate; edit the declaration, not the table -->\n"
	tableEnd   = "<!-- end of the settings table -->\n"
)

// renderTable is docs/api.md's table of the fields createQueue and
// updateQueue accept: state, then every setting, each delete field after
// its list.
func renderTable(all []settingdecl.Setting) string {
	var b strings.Builder
	row := func(cells ...string) { fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | ")) }
	row("Field", "Type", "Default", "Rule")
	b.WriteString("|---|---|---|---|\n")
	row("`state`", "string", "`running`", "`running`, `paused`, `draining` (`switching_modes` only as an echo of the current state)")
	for _, s := range all {
		row("`"+s.API+"`", docType(s), docDefault(s), docRule(s))
		if s.Delete != "" {
			row("`"+s.Delete+"`", "boolean", "—", s.DeleteRule+" (requests only)")
		}
	}
	return b.String()
}

func docType(s settingdecl.Setting) string {
	switch s.Kind {
	case settingdecl.List:
		return "array of strings"
	case settingdecl.NullableList:
		return "array of strings, or `null`"
	}
	return s.JSONType()
}

func docDefault(s settingdecl.Setting) string {
	if s.DefaultDoc != "" {
		return s.DefaultDoc
	}
	switch v := s.Default.(type) {
	case int:
		return fmt.Sprintf("`%d`", v)
	case bool:
		return fmt.Sprintf("`%t`", v)
	case string:
		return "`" + v + "`"
	}
	switch s.Kind {
	case settingdecl.Int:
		return "`0`"
	case settingdecl.Bool:
		return "`false`"
	case settingdecl.NullableList:
		return "`null`"
	}
	return "`[]`"
}

func docRule(s settingdecl.Setting) string {
	var parts []string
	switch s.Kind {
	case settingdecl.Int:
		r := fmt.Sprintf("%d–%d", s.Min, s.Max)
		if s.RangeNote != "" {
			r += ", " + s.RangeNote
		}
		parts = append(parts, r)
		if s.AtLeast != "" {
			parts = append(parts, "at least `"+s.AtLeast+"`")
		}
	case settingdecl.Enum:
		vals := make([]string, len(s.Enum.Values))
		for i, v := range s.Enum.Values {
			vals[i] = "`" + v.Wire + "`"
		}
		parts = append(parts, strings.Join(vals, ", "))
	}
	if s.Rule != "" {
		parts = append(parts, s.Rule)
	}
	return strings.Join(parts, "; ")
}

// replaceTable returns docs with the text between the table's markers
// replaced by table.
func replaceTable(docs []byte, table string) ([]byte, error) {
	start := bytes.Index(docs, []byte(tableStart))
	end := bytes.Index(docs, []byte(tableEnd))
	if start < 0 || end < start {
		return nil, fmt.Errorf("%s lacks the settings table's markers %q and %q, in that order", docsPath, tableStart, tableEnd)
	}
	var out bytes.Buffer
	out.Write(docs[:start+len(tableStart)])
	out.WriteString(table)
	out.Write(docs[end:])
	return out.Bytes(), nil
}
