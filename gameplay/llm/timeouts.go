package llm

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// Timeouts bound one model call, phase by phase, whatever http.Client makes
// it. A zero field takes its default from DefaultTimeouts.
type Timeouts struct {
	// Connect bounds DNS, TCP and TLS until a connection is ready.
	Connect time.Duration
	// Headers bounds the time from the connection to the response headers
	// (sending the request and the model reading the prompt).
	Headers time.Duration
	// Idle bounds the silence between two reads of the streamed body; SSE
	// keep-alive comments count as activity, the total bounds them.
	Idle time.Duration
	// Total bounds the whole call.
	Total time.Duration
}

// DefaultTimeouts are generous for a local model that loads on first use.
var DefaultTimeouts = Timeouts{Connect: 10 * time.Second, Headers: 60 * time.Second, Idle: 60 * time.Second, Total: 10 * time.Minute}

func (t Timeouts) withDefaults() Timeouts {
	d := DefaultTimeouts
	if t.Connect > 0 {
		d.Connect = t.Connect
	}
	if t.Headers > 0 {
		d.Headers = t.Headers
	}
	if t.Idle > 0 {
		d.Idle = t.Idle
	}
	if t.Total > 0 {
		d.Total = t.Total
	}
	return d
}

// watchdog runs the timers of one call. Exactly one phase timer is armed at
// a time (connect, then headers, then idle, re-armed by every body read),
// and the total runs beside it. The first to fire cancels the call's
// context and is what the call returns.
type watchdog struct {
	limits Timeouts
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	phase   *time.Timer
	gen     int // bumped at every arming, so a stale timer firing is ignored
	total   *time.Timer
	fired   *Error
	stopped bool
}

func newWatchdog(limits Timeouts, cancel context.CancelCauseFunc) *watchdog {
	w := &watchdog{limits: limits.withDefaults(), cancel: cancel}
	w.total = time.AfterFunc(w.limits.Total, func() {
		w.fire(-1, &Error{Kind: KindTotalTimeout, Message: fmt.Sprintf("the reply took longer than %v in all", w.limits.Total)})
	})
	return w
}

// arm starts the next phase's timer.
func (w *watchdog) arm(d time.Duration, kind, message string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.fired != nil {
		return
	}
	if w.phase != nil {
		w.phase.Stop()
	}
	w.gen++
	gen := w.gen
	w.phase = time.AfterFunc(d, func() { w.fire(gen, &Error{Kind: kind, Message: message}) })
}

// fire cancels the call unless a newer phase replaced the one that fired
// (gen -1 is the total, always current).
func (w *watchdog) fire(gen int, e *Error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.fired != nil || (gen >= 0 && gen != w.gen) {
		return
	}
	w.fired = e
	w.cancel(e)
}

// timedOut returns the timeout that ended the call, or nil.
func (w *watchdog) timedOut() *Error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.total.Stop()
	if w.phase != nil {
		w.phase.Stop()
	}
}

// middleware is an openai-go middleware that walks the phases: connect
// until the transport has a connection, headers until the response arrives,
// then idle between body reads.
func (w *watchdog) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	l := w.limits
	idle := fmt.Sprintf("the model sent nothing for %v", l.Idle)
	w.arm(l.Connect, KindConnectTimeout, fmt.Sprintf("no connection to the endpoint within %v", l.Connect))
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
		w.arm(l.Headers, KindHeadersTimeout, fmt.Sprintf("the endpoint sent no response headers within %v", l.Headers))
	}}
	resp, err := next(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err != nil {
		return resp, err
	}
	w.arm(l.Idle, KindIdleTimeout, idle)
	resp.Body = &activityBody{ReadCloser: resp.Body, onRead: func() { w.arm(l.Idle, KindIdleTimeout, idle) }}
	return resp, nil
}

// activityBody reports every read that brought bytes.
type activityBody struct {
	io.ReadCloser
	onRead func()
}

func (b *activityBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.onRead()
	}
	return n, err
}
