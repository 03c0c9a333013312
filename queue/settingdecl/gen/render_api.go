package main

import (
	"fmt"
	"strings"

	"github.com/mergequeue/mq/queue/settingdecl"
)

// renderAPI is handlers/api/queue_settings_gen.go: queueFields (the
// request), its conversion to a queue.QueueUpdate, and queueJSON (the
// response).
func renderAPI(all []settingdecl.Setting) string {
	w := &writer{}
	w.f("package api\n\nimport (\n\t\"encoding/json\"\n\n\t\"github.com/mergequeue/mq/queue\"\n)\n\n")

	w.comment(0, "queueFields are the settable fields of a queue, as getQueue names them, accepted by createQueue "+
		"and updateQueue. An absent field and a null one are both \"no change\"; a NullableList is reset with its "+
		"delete field (deleteRequiredStatuses: true). Read-only fields a client echoes back (branch, "+
		"enqueuedPullRequests) are ignored like any unknown field. A wrong JSON type is a 400 naming the field "+
		"(decodeJSON); every other rule is the queue's (queue.QueueUpdate.ApplySettings).")
	w.f("type queueFields struct {\n\tState *string `json:\"state\"`\n")
	for _, s := range all {
		switch s.Kind {
		case settingdecl.EmptyList:
			w.f("\t%s *[]json.RawMessage `json:%q`\n", exported(s.API), s.API)
		case settingdecl.Enum:
			w.f("\t%s *string `json:%q`\n", s.Field, s.API)
		default:
			w.f("\t%s *%s `json:%q`\n", s.Field, s.GoType(), s.API)
		}
		if s.Delete != "" {
			w.f("\t%s *bool `json:%q`\n", s.DeleteField(), s.Delete)
		}
	}
	w.f("}\n\n")

	w.comment(0, "settingsUpdate is the queue.QueueUpdate of the settings fields (State aside). A field "+
		"accepted only empty is a 400 when it is not.")
	w.f("func (f *queueFields) settingsUpdate() (queue.QueueUpdate, error) {\n")
	for _, s := range all {
		if s.Kind == settingdecl.EmptyList {
			n := exported(s.API)
			w.f("\tif f.%s != nil && len(*f.%s) > 0 {\n", n, n)
			w.f("\t\treturn queue.QueueUpdate{}, badRequestf(%q, len(*f.%s))\n\t}\n", "invalid field "+s.API+": "+s.Refusal, n)
		}
	}
	w.f("\treturn queue.QueueUpdate{\n")
	for _, s := range all {
		switch s.Kind {
		case settingdecl.EmptyList:
		case settingdecl.Enum:
			w.f("\t\t%s: (*queue.%s)(f.%s),\n", s.Field, s.GoType(), s.Field)
		default:
			w.f("\t\t%[1]s: f.%[1]s,\n", s.Field)
		}
		if s.Delete != "" {
			w.f("\t\t%[1]s: f.%[1]s != nil && *f.%[1]s,\n", s.DeleteField())
		}
	}
	w.f("\t}, nil\n}\n\n")

	w.comment(0, "queueJSON is a queue as the API shows it: seed §2.3 without enqueuedPullRequests, plus the "+
		"SPEC §7 settings and the fields newer clients of the hosted API require. Every field is always "+
		"present; enums are lower case; lists are never null except a NullableList (requiredStatuses), whose "+
		"null (use branch protection) stays apart from [] (explicitly none). getQueue adds the entries; "+
		"updateQueue answers this alone.")
	w.f("type queueJSON struct {\n\tState string `json:\"state\"`\n\tBranch string `json:\"branch\"`\n")
	for _, s := range all {
		switch s.Kind {
		case settingdecl.EmptyList:
			w.f("\t%s []json.RawMessage `json:%q`\n", exported(s.API), s.API)
		case settingdecl.Enum:
			w.f("\t%s string `json:%q`\n", s.Field, s.API)
		default:
			w.f("\t%s %s `json:%q`\n", s.Field, s.GoType(), s.API)
		}
	}
	w.f("}\n\n")

	w.comment(0, "newQueueJSON renders q: each setting as its declaration shows it (an unset setting's effective "+
		"value; the mode the queue switches to while it switches modes, so a client reads back what it set).")
	w.f("func newQueueJSON(q *queue.Queue) queueJSON {\n\ts := q.Settings\n\treturn queueJSON{\n")
	w.f("\t\tState: string(q.State),\n\t\tBranch: q.Key.Branch,\n")
	for _, s := range all {
		var v string
		switch {
		case s.Kind == settingdecl.EmptyList:
			w.f("\t\t%s: []json.RawMessage{},\n", exported(s.API))
			continue
		case s.Shown == "":
			v = "s." + s.Field
		case strings.HasPrefix(s.Shown, "Queue."):
			v = "q." + strings.TrimPrefix(s.Shown, "Queue.") + "()"
		default:
			v = "s." + s.Shown + "()"
		}
		switch s.Kind {
		case settingdecl.Enum:
			v = "string(" + v + ")"
		case settingdecl.List:
			v = "append([]string{}, " + v + "...)"
		}
		w.f("\t\t%s: %s,\n", s.Field, v)
	}
	w.f("\t}\n}\n")
	return w.String()
}

// exported is an API name as a Go field name.
func exported(api string) string { return fmt.Sprintf("%c%s", api[0]-'a'+'A', api[1:]) }
