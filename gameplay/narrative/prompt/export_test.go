package prompt

// Internals the external tests compare the prompt against.
const (
	RefusalNote  = refusalNote
	EmitReminder = emitReminder
)

// LengthHint exposes lengthHint to the external tests.
var LengthHint = lengthHint
