package webui_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/webui"
)

// The route tests check every answer against the OpenAPI document: a
// fixture's handler (newFixture) validates each /api answer with the schema
// documented for its route, status and media type, and an error's code
// with the codes documented for that status. A schema that says something
// the server does not do fails the test that saw it.

// buildDocument is the document the server serves, with version "dev".
func buildDocument() ([]byte, error) {
	// The document depends on the routes only; no database is needed.
	srv, err := webui.New(webui.Options{Services: &gameplay.Services{}, Version: "dev", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/api/openapi.json", nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("GET /api/openapi.json: %d %s", rec.Code, rec.Body)
	}
	return append(rec.Body.Bytes(), '\n'), nil
}

// contract is the OpenAPI document, ready to check answers.
type contract struct {
	defs   json.RawMessage // components.schemas, referred to as #/$defs/…
	routes []contractRoute

	mu       sync.Mutex
	resolved map[string]*jsonschema.Resolved // by schema JSON
}

type contractRoute struct {
	method, path string
	re           *regexp.Regexp
	literals     int // segments without a parameter: the router prefers them
	responses    map[string]contractResponse
}

type contractResponse struct {
	Content map[string]struct {
		Schema json.RawMessage `json:"schema"`
	} `json:"content"`
	ErrorCodes []string `json:"x-error-codes"`
}

var loadContract = sync.OnceValues(func() (*contract, error) {
	doc, err := buildDocument()
	if err != nil {
		return nil, err
	}
	// The schemas refer to each other as #/components/schemas/Name; a
	// JSON Schema validator finds them under $defs of the schema it checks.
	doc = bytes.ReplaceAll(doc, []byte(`"#/components/schemas/`), []byte(`"#/$defs/`))
	var d struct {
		Paths      map[string]map[string]struct{ Responses map[string]contractResponse } `json:"paths"`
		Components struct {
			Schemas json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	c := &contract{defs: d.Components.Schemas, resolved: map[string]*jsonschema.Resolved{}}
	for path, ops := range d.Paths {
		segs := strings.Split(path, "/")
		for i, seg := range segs {
			if strings.HasPrefix(seg, "{") {
				segs[i] = `[^/]+`
			} else {
				segs[i] = regexp.QuoteMeta(seg)
			}
		}
		re := regexp.MustCompile("^" + strings.Join(segs, "/") + "$")
		for method, op := range ops {
			c.routes = append(c.routes, contractRoute{
				method: strings.ToUpper(method), path: path, re: re,
				literals:  strings.Count(path, "/") - strings.Count(path, "{"),
				responses: op.Responses,
			})
		}
	}
	return c, nil
})

// match finds the documented route of a request, as the router would.
func (c *contract) match(method, path string) *contractRoute {
	var best *contractRoute
	for i, r := range c.routes {
		if r.method == method && r.re.MatchString(path) && (best == nil || r.literals > best.literals) {
			best = &c.routes[i]
		}
	}
	return best
}

// validate checks the JSON value v against schema, whose references point
// into the document's components.
func (c *contract) validate(schema json.RawMessage, v any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	rs, ok := c.resolved[string(schema)]
	if !ok {
		var root map[string]json.RawMessage
		if err := json.Unmarshal(schema, &root); err != nil {
			return err
		}
		root["$defs"] = c.defs
		b, err := json.Marshal(root)
		if err != nil {
			return err
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if rs, err = s.Resolve(nil); err != nil {
			return fmt.Errorf("resolve %s: %w", schema, err)
		}
		c.resolved[string(schema)] = rs
	}
	return rs.Validate(v)
}

var errorBodySchema = json.RawMessage(`{"$ref":"#/$defs/ErrorBody"}`)

// check compares one answer with the document.
func (c *contract) check(method, path string, status int, header http.Header, body []byte) error {
	if !strings.HasPrefix(path, "/api/") || path == "/api/openapi.json" || path == "/api/docs" {
		return nil // not part of the JSON API
	}
	if len(body) == 0 && (status == 499 || status == http.StatusRequestTimeout) {
		return nil // the request ended before an answer (respondError)
	}
	media, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	route := c.match(method, path)
	if route == nil {
		// No such route or method: only an error may answer.
		if status < 400 || media != "application/json" {
			return fmt.Errorf("the document has no route %s %s", method, path)
		}
		return c.validateJSON(errorBodySchema, body)
	}
	resp, ok := route.responses[strconv.Itoa(status)]
	if !ok {
		return fmt.Errorf("%s %s documents no status %d", route.method, route.path, status)
	}
	content, ok := resp.Content[media]
	if !ok {
		return fmt.Errorf("%s %s documents no %q answer for %d", route.method, route.path, media, status)
	}
	switch {
	case media == "application/json":
		if err := c.validateJSON(content.Schema, body); err != nil {
			return err
		}
		if status >= 400 {
			var e webui.ErrorBody
			if err := json.Unmarshal(body, &e); err != nil {
				return err
			}
			if !slices.Contains(resp.ErrorCodes, e.Error.Code) {
				return fmt.Errorf("%s %s documents error codes %v for %d, not %q", route.method, route.path, resp.ErrorCodes, status, e.Error.Code)
			}
		}
	case media == "text/event-stream":
		var s struct {
			ContentSchema json.RawMessage `json:"contentSchema"`
		}
		if err := json.Unmarshal(content.Schema, &s); err != nil || s.ContentSchema == nil {
			return fmt.Errorf("%s %s: the stream has no contentSchema", route.method, route.path)
		}
		return c.validateEvents(s.ContentSchema, body)
	}
	return nil // bytes of a documented media type (an image)
}

func (c *contract) validateJSON(schema json.RawMessage, body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	if err := c.validate(schema, v); err != nil {
		return fmt.Errorf("%w\nbody: %.2000s", err, body)
	}
	return nil
}

// validateEvents checks the data of each complete event of a stream (a
// stream the client left early may end in the middle of one).
func (c *contract) validateEvents(schema json.RawMessage, body []byte) error {
	end := bytes.LastIndex(body, []byte("\n\n"))
	if end < 0 {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body[:end]))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if err := c.validateJSON(json.RawMessage(schema), []byte(data)); err != nil {
			return fmt.Errorf("event %s: %w", data, err)
		}
	}
	return sc.Err()
}

// checkContract wraps a test server's handler: every answer it gives is
// checked against the OpenAPI document, and a mismatch fails t.
func checkContract(t testing.TB, h http.Handler) http.Handler {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tee := &teeWriter{ResponseWriter: w}
		h.ServeHTTP(tee, r)
		if tee.status == 0 {
			tee.status = http.StatusOK
		}
		body := tee.body.Bytes()
		if strings.HasPrefix(r.URL.Path, "/api/") && w.Header().Get("Content-Encoding") == "gzip" && len(body) > 0 {
			// A large JSON answer is gzipped on the way out: check what it says.
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err == nil {
				body, err = io.ReadAll(zr)
			}
			if err != nil {
				t.Errorf("%s %s: the gzipped answer does not decode: %v", r.Method, r.URL.Path, err)
				return
			}
		}
		if err := c.check(r.Method, r.URL.Path, tee.status, w.Header(), body); err != nil {
			t.Errorf("%s %s answered %d, which the OpenAPI document does not allow: %v", r.Method, r.URL.Path, tee.status, err)
		}
	})
}

// teeWriter keeps a copy of the answer while it goes to the client.
type teeWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *teeWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *teeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// Flush passes on the flushes of a streamed answer.
func (w *teeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
