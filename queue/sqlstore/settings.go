package sqlstore

import "github.com/mergequeue/mq/queue"

// settingsDoc, the stored form of queue.Settings, is generated from the
// declaration of the settings (queue/settingdecl) into settings_gen.go:
// each setting's stored key is declared there, never renamed.

func toSettingsDoc(s queue.Settings) settingsDoc {
	return settingsDoc(s)
}

func fromSettingsDoc(d settingsDoc) queue.Settings {
	return queue.Settings(d)
}
