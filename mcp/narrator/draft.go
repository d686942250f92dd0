package narrator

import (
	"context"
	"strings"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/table"
)

// draft streams the narration a model is writing into the narrator's row,
// where every member's browser reads it (whichever process serves them)
// until the step posts it. It shows only what the table could read: text
// the model writes before a tool call is not a reply and is taken down, a
// fenced action block is cut off, and a DM's draft that names a DC is
// never shown (the review will have it rewritten). Writes are spaced by
// every; the first is at once.
type draft struct {
	ctx     context.Context
	tables  *table.Service
	n       table.NarratorSeat
	token   string
	every   time.Duration
	text    strings.Builder
	hidden  bool
	written string
	last    time.Time
}

// start begins a new model call: what the last one wrote is taken down.
func (d *draft) start() {
	d.text.Reset()
	d.hidden = false
	d.write("")
}

// onEvent is the model call's stream callback.
func (d *draft) onEvent(ev llm.Event) {
	switch ev.Kind {
	case llm.EventChunk:
		if d.hidden {
			return
		}
		d.text.WriteString(ev.Text)
		shown, ok := readable(d.n, d.text.String())
		if !ok {
			d.hidden = true
			d.write("")
			return
		}
		if d.written == "" || time.Since(d.last) >= d.every {
			d.write(shown)
		}
	case llm.EventToolCall:
		d.hidden = true
		d.write("")
	}
}

func (d *draft) write(text string) {
	if text == d.written {
		return
	}
	if _, err := d.tables.SetNarratorDraft(d.ctx, d.n.GrantID, d.token, text); err != nil {
		return // a lost write costs a moment of streaming, never the step
	}
	d.written, d.last = text, time.Now()
}

// readable is what of the text so far the table may read while it is
// written, and false when none of it may be shown.
func readable(n table.NarratorSeat, text string) (string, bool) {
	if i := strings.Index(text, "```"); i >= 0 {
		text = text[:i]
	}
	if n.Role == table.RoleDM && dcInText.MatchString(text) {
		return "", false
	}
	return clip(strings.TrimSpace(text), 4000), true
}
