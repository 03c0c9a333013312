package main

import (
	"fmt"

	"github.com/mergequeue/mq/queue/settingdecl"
)

// renderStore is queue/sqlstore/settings_gen.go: settingsDoc, the stored
// JSON form of queue.Settings.
func renderStore(all []settingdecl.Setting) string {
	w := &writer{}
	w.f("package sqlstore\n\nimport \"github.com/mergequeue/mq/queue\"\n\n")
	w.comment(0, "settingsDoc is the stored JSON form of queue.Settings. Its tags (each setting's stored key), "+
		"not the Go field names, are the storage format, so renaming a field of queue.Settings does not lose "+
		"stored values. It lists the fields of queue.Settings in the same order, so the two types convert into "+
		"each other. A key missing from an older row decodes as the zero value.")
	w.f("type settingsDoc struct {\n")
	for _, s := range stored(all) {
		typ := s.GoType()
		if s.Kind == settingdecl.Enum {
			typ = "queue." + typ
		}
		if s.LaterKey {
			w.comment(1, fmt.Sprintf("Added after queues were stored: older rows lack it and decode as the zero value (%s's default).", s.API))
		}
		w.f("\t%s %s `json:%q`\n", s.Field, typ, s.Store)
	}
	w.f("}\n")
	return w.String()
}
