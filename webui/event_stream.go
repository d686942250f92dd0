package webui

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The event stream is the browser's live feed: one request per open table
// instead of one per wake. It is the long poll in a loop (the same
// WaitEvents, so the same fan-out, audience rules and re-resolution of the
// actor), written as Server-Sent Events:
//
//	id: <cursor>
//	data: <EventPage>
//
// A wake costs no request and no query: the hub's one read is filtered for
// each stream and written to it. EventSource reconnects by itself and sends
// the last id as Last-Event-ID, which this route prefers to ?after=.

// streamKeepalive is how long a stream stays silent before a comment line
// goes out, so proxies and the browser keep an idle stream open.
const streamKeepalive = table.DefaultWait

// keepaliveSpread is how much earlier than streamKeepalive a stream may
// speak: one post wakes every stream at once, and without it all of them
// would send their next keepalive in the same instant 25 s later.
const keepaliveSpread = 5 * time.Second

// keepaliveWait is one stream's silence before its next keepalive.
func keepaliveWait() time.Duration {
	return streamKeepalive - rand.N(keepaliveSpread)
}

// streamIdentityEvery is how often an open stream checks that its browser
// session still stands (a logout everywhere or a deleted account ends it);
// the check is the same Resume every request makes, cached for 10 s.
const streamIdentityEvery = 10 * time.Second

// streamEvents answers GET /api/sessions/{id}/events/stream. Everything that
// can refuse it (no such session, no access, a bad cursor) is answered as an
// ordinary JSON error before the stream opens; a refusal after it opened (a
// revoked member) is one "refused" event with the error body, then the end.
func (s *Server) streamEvents(c *gin.Context) {
	t := s.opts.Services.Table
	id, ok := pathID(c, "id")
	if !ok {
		return
	}
	after, ok := queryInt(c, "after")
	if !ok {
		return
	}
	if last := c.GetHeader("Last-Event-ID"); last != "" {
		v, err := strconv.ParseInt(last, 10, 64)
		if err != nil || v < 0 {
			respondError(c, apperr.E(apperr.InvalidRequest, "Last-Event-ID must be a cursor (an integer, 0 or more).").WithField("Last-Event-ID", "an integer"))
			return
		}
		after = v
	}
	ctx := c.Request.Context()
	caller := callerOf(c)
	// The first read checks access and brings the stream up to date.
	page, err := t.ListEvents(ctx, caller, id, after, table.MaxEventLimit)
	if err != nil {
		respondError(c, err)
		return
	}
	w := c.Writer
	openEventStream(w)
	// retry: how long EventSource waits before it reconnects.
	_, _ = w.WriteString("retry: 2000\n\n")
	checked := time.Now()
	for {
		if len(page.Events) > 0 {
			writePage(w, page)
		} else {
			_, _ = w.WriteString(": keepalive\n\n")
		}
		w.Flush()
		after = page.Cursor
		if page.HasMore {
			page, err = t.ListEvents(ctx, caller, id, after, table.MaxEventLimit)
		} else {
			select {
			case <-t.Stopping():
				return // the client reconnects to the next server
			default:
			}
			if time.Since(checked) >= streamIdentityEvery {
				if !s.sameBrowserSession(c) {
					return // the reconnect meets the browser's new identity
				}
				checked = time.Now()
			}
			page, err = t.WaitEvents(ctx, caller, id, after, keepaliveWait())
		}
		if err != nil {
			if ctx.Err() == nil {
				writeRefusal(w, err)
			}
			return
		}
	}
}

// openEventStream answers 200 with the headers of a Server-Sent Events
// stream; what follows is written as it happens.
func openEventStream(w gin.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // a buffering proxy would hold the stream
	w.WriteHeader(http.StatusOK)
}

// writePage writes one page of events as an SSE message whose id is the
// cursor to resume from. The page's own encoding is written as it is: one
// wake encodes a page once for every stream that sees the same events.
func writePage(w gin.ResponseWriter, page table.EventPage) {
	b, _ := page.JSON()
	_, _ = w.WriteString("id: " + strconv.FormatInt(page.Cursor, 10) + "\ndata: ")
	_, _ = w.Write(b)
	_, _ = w.WriteString("\n\n")
}

// writeRefusal ends a stream with the error a request would have answered.
func writeRefusal(w gin.ResponseWriter, err error) {
	b, _ := json.Marshal(errorBodyOf(err))
	_, _ = w.WriteString("event: refused\ndata: ")
	_, _ = w.Write(b)
	_, _ = w.WriteString("\n\n")
	w.Flush()
}

// sameBrowserSession reports whether the request's cookie still names the
// caller's account (not logged out everywhere, not deleted).
func (s *Server) sameBrowserSession(c *gin.Context) bool {
	cookie, _ := s.readSession(c.Request)
	sess, ok, err := s.opts.Services.Accounts.Resume(c.Request.Context(), cookie)
	return err == nil && ok && table.Human(sess.Account.ID) == callerOf(c)
}
