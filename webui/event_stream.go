package webui

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The event stream is the browser's live feed: one request per open table
// instead of one per wake. It follows the session's feed with the loop
// behind the long poll (table.FollowEvents, so the same fan-out, audience
// rules and re-resolution of the actor), written as Server-Sent Events:
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
//
// Over HTTP/1.1 the stream leaves net/http once it is open: the connection
// is taken over (hijacked) and followed by one small goroutine of its own,
// so an idle stream holds no handler stack, no gin context, no net/http
// buffers and no background reader (28 instead of 59 KiB per idle stream
// at 10,000, and half the goroutines). HTTP/2 multiplexes streams on one
// connection and cannot hand one over: there the handler follows the
// stream itself. Nothing reads a taken-over connection, so a client that
// went away is noticed when a write to it fails: at the next wake or
// keepalive (the first write after a close may still be accepted by the
// kernel, so within two keepalives, 50 s); until then its waiter costs the
// hub a few hundred bytes.
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
	st := &eventStream{server: s, caller: callerOf(c), sessionID: id, checked: time.Now()}
	st.browser, _ = s.readSession(c.Request)
	// The first read checks access and brings the stream up to date.
	page, err := t.ListEvents(ctx, st.caller, id, after, table.MaxEventLimit)
	if err != nil {
		respondError(c, err)
		return
	}
	if conn, taken := hijackStream(c); taken {
		if conn == nil {
			return // taken over and already gone
		}
		go func() {
			defer conn.Close()
			// The request's context ends when this handler returns; the
			// stream ends when a write fails or the server stops.
			st.follow(context.WithoutCancel(ctx), page, rawSink{conn})
		}()
		return
	}
	openEventStream(c.Writer)
	_ = ginSink{c.Writer}.send([]byte(streamRetry))
	st.follow(ctx, page, ginSink{c.Writer})
}

// streamRetry tells EventSource how long to wait before it reconnects.
const streamRetry = "retry: 2000\n\n"

// streamWriteTimeout bounds one write to a stream: a client that stopped
// reading is dropped rather than left holding its goroutine.
const streamWriteTimeout = 10 * time.Second

// eventStream is one open stream: who follows which session, and when its
// browser session was last checked.
type eventStream struct {
	server    *Server
	caller    table.Caller
	browser   auth.BrowserSession
	sessionID int64
	checked   time.Time
}

// sink is where a stream's frames go: net/http's writer, or the taken-over
// connection.
type sink interface {
	send(frame []byte) error
}

// follow writes page, then every page after it as it comes, until the
// client goes, the server stops or the caller may no longer read.
func (st *eventStream) follow(ctx context.Context, page table.EventPage, out sink) {
	t := st.server.opts.Services.Table
	if err := out.send(frameOf(page)); err != nil {
		return // the client went away
	}
	// emit's false (the client went, or its browser session did) ends the
	// follow with no error: only a refusal comes back as one.
	_, err := t.FollowEvents(ctx, st.caller, st.sessionID, page.Cursor, keepaliveWait, func(p table.EventPage) bool {
		if time.Since(st.checked) >= streamIdentityEvery {
			if !st.server.sameBrowserSession(ctx, st.browser, st.caller) {
				return false // the reconnect meets the browser's new identity
			}
			st.checked = time.Now()
		}
		return out.send(frameOf(p)) == nil
	})
	if err == nil || ctx.Err() != nil {
		return
	}
	select {
	case <-t.Stopping():
		return // a read cut short by the stop is no refusal
	default:
	}
	_ = out.send(refusalFrame(err))
}

// frameOf is a page as the stream writes it: its events, or a keepalive
// when it has none.
func frameOf(page table.EventPage) []byte {
	if len(page.Events) == 0 {
		return []byte(": keepalive\n\n")
	}
	return pageFrame(page)
}

// ginSink writes through net/http (HTTP/2, or a writer that cannot be taken
// over), flushing each frame.
type ginSink struct{ w gin.ResponseWriter }

func (g ginSink) send(frame []byte) error {
	if _, err := g.w.Write(frame); err != nil {
		return err
	}
	g.w.Flush()
	return nil
}

// rawSink writes to a taken-over HTTP/1.1 connection.
type rawSink struct{ conn net.Conn }

func (r rawSink) send(frame []byte) error {
	if err := r.conn.SetWriteDeadline(time.Now().Add(streamWriteTimeout)); err != nil {
		return err
	}
	_, err := r.conn.Write(frame)
	return err
}

// hijackStream takes an HTTP/1.1 connection over from net/http and writes
// the stream's response head (with the headers the middleware set) and its
// retry line. The body runs until the connection closes (Connection:
// close, no length), which every HTTP/1.1 client reads as a stream.
func hijackStream(c *gin.Context) (net.Conn, bool) {
	// gin's writer claims Hijack whatever it wraps; ask the one beneath.
	inner, ok := c.Writer.(interface{ Unwrap() http.ResponseWriter })
	if !ok || c.Request.ProtoMajor != 1 {
		return nil, false
	}
	if _, ok := inner.Unwrap().(http.Hijacker); !ok {
		return nil, false
	}
	h := c.Writer.Header().Clone()
	conn, _, err := c.Writer.Hijack()
	if err != nil {
		return nil, false
	}
	setStreamHeaders(h)
	h.Set("Connection", "close")
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 200 OK\r\n")
	_ = h.Write(&head)
	head.WriteString("\r\n" + streamRetry)
	if err := (rawSink{conn}).send(head.Bytes()); err != nil {
		_ = conn.Close()
		return nil, true
	}
	return conn, true
}

// openEventStream answers 200 with the headers of a Server-Sent Events
// stream; what follows is written as it happens.
func openEventStream(w gin.ResponseWriter) {
	setStreamHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
}

func setStreamHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // a buffering proxy would hold the stream
}

// pageFrame is one page of events as an SSE message whose id is the cursor
// to resume from. The page's own encoding is used as it is: one wake
// encodes a page once for every stream that sees the same events.
func pageFrame(page table.EventPage) []byte {
	b, _ := page.JSON()
	frame := make([]byte, 0, len(b)+40)
	frame = append(frame, "id: "...)
	frame = strconv.AppendInt(frame, page.Cursor, 10)
	frame = append(frame, "\ndata: "...)
	frame = append(frame, b...)
	return append(frame, "\n\n"...)
}

// refusalFrame ends a stream with the error a request would have answered.
func refusalFrame(err error) []byte {
	b, _ := json.Marshal(errorBodyOf(err))
	return append(append([]byte("event: refused\ndata: "), b...), "\n\n"...)
}

// sameBrowserSession reports whether the stream's browser session still
// names the caller's account (not logged out everywhere, not deleted).
func (s *Server) sameBrowserSession(ctx context.Context, browser auth.BrowserSession, caller table.Caller) bool {
	sess, ok, err := s.opts.Services.Accounts.Resume(ctx, browser, accounts.Client{})
	return err == nil && ok && table.Human(sess.Account.ID) == caller
}
