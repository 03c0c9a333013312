package api

import "github.com/mergequeue/mq/queue"

// queueFields (the request's settable fields), queueJSON (a queue as the
// API shows it) and their conversions are generated from the declaration
// of the settings (queue/settingdecl) into queue_settings_gen.go.

// update turns the fields into a queue.QueueUpdate, and refuses a field
// that is wrong on its own before any queue is read: the queue's state,
// parsed here, and the settings, checked by the queue
// (queue.QueueUpdate.CheckFields: enums in any case, ranges, names). Each
// refusal is a 400 naming the field; the rules across fields are checked
// against the queue's settings when the update applies.
func (f *queueFields) update() (queue.QueueUpdate, error) {
	u, err := f.settingsUpdate()
	if err != nil {
		return u, err
	}
	if u.State, err = optEnum("state", f.State, queue.QueueRunning, queue.QueuePaused, queue.QueueDraining, queue.QueueSwitchingModes); err != nil {
		return u, err
	}
	return u, u.CheckFields()
}

// optEnum parses an optional enum field (nil stays nil).
func optEnum[T ~string](field string, s *string, allowed ...T) (*T, error) {
	if s == nil {
		return nil, nil
	}
	v, err := parseEnum(field, *s, allowed...)
	if err != nil {
		return nil, err
	}
	return &v, nil
}
