package webui_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/webui"
)

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func brotliBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	bw := brotli.NewWriterLevel(&buf, brotli.BestCompression)
	bw.Write(b)
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decoded undoes the Content-Encoding of an answer.
func decoded(t testing.TB, coding string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return body
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	default:
		t.Fatalf("unexpected Content-Encoding %q", coding)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decode %s: %v", coding, err)
	}
	return b
}

// compressedApp is a built app as the build leaves it: the script and
// index.html with .br and .gz next to them, the stylesheet with .gz only,
// the icon with none.
func compressedApp(t testing.TB) (fstest.MapFS, map[string][]byte) {
	plain := map[string][]byte{
		"index.html":              []byte(`<!doctype html><div id="root"></div><script src="/assets/index-abc123.js"></script>` + strings.Repeat("<!-- padding -->", 80)),
		"assets/index-abc123.js":  bytes.Repeat([]byte("export const line = 'The gate creaks open';\n"), 300),
		"assets/index-abc123.css": bytes.Repeat([]byte(".feed { color: #333; }\n"), 200),
		"favicon.svg":             []byte(`<svg/>`),
	}
	app := fstest.MapFS{}
	for name, b := range plain {
		app[name] = &fstest.MapFile{Data: b}
	}
	for _, name := range []string{"index.html", "assets/index-abc123.js"} {
		app[name+".br"] = &fstest.MapFile{Data: brotliBytes(t, plain[name])}
	}
	for _, name := range []string{"index.html", "assets/index-abc123.js", "assets/index-abc123.css"} {
		app[name+".gz"] = &fstest.MapFile{Data: gzipBytes(t, plain[name])}
	}
	return app, plain
}

// rawClient sees answers as sent: no transparent gzip decoding, and it
// offers no Accept-Encoding of its own.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func rawGet(t testing.TB, method, url string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func TestAppFilesPrecompressed(t *testing.T) {
	app, plain := compressedApp(t)
	f := newFixture(t, func(o *webui.Options) { o.App = app })
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	const immutable = "public, max-age=31536000, immutable"
	tests := []struct {
		name, path, accept string
		wantCoding         string
		wantVary           bool
		wantCache          string
		wantType           string
	}{
		{name: "OKScriptBrotli", path: "/assets/index-abc123.js", accept: "gzip, deflate, br, zstd", wantCoding: "br", wantVary: true, wantCache: immutable, wantType: "text/javascript; charset=utf-8"},
		{name: "OKScriptGzip", path: "/assets/index-abc123.js", accept: "gzip, deflate", wantCoding: "gzip", wantVary: true, wantCache: immutable, wantType: "text/javascript; charset=utf-8"},
		{name: "OKScriptIdentity", path: "/assets/index-abc123.js", accept: "", wantVary: true, wantCache: immutable, wantType: "text/javascript; charset=utf-8"},
		{name: "OKScriptBrotliRefused", path: "/assets/index-abc123.js", accept: "br;q=0, gzip", wantCoding: "gzip", wantVary: true, wantCache: immutable, wantType: "text/javascript; charset=utf-8"},
		{name: "OKScriptAllRefused", path: "/assets/index-abc123.js", accept: "br;q=0, gzip;q=0", wantVary: true, wantCache: immutable, wantType: "text/javascript; charset=utf-8"},
		{name: "OKScriptWildcardRefused", path: "/assets/index-abc123.js", accept: "*;q=0, identity", wantVary: true, wantCache: immutable, wantType: "text/javascript; charset=utf-8"},
		{name: "OKScriptWildcard", path: "/assets/index-abc123.js", accept: "*", wantCoding: "br", wantVary: true, wantCache: immutable, wantType: "text/javascript; charset=utf-8"},
		{name: "OKScriptHigherWeightWins", path: "/assets/index-abc123.js", accept: "br;q=0.5, gzip;q=0.8", wantCoding: "gzip", wantVary: true, wantCache: immutable, wantType: "text/javascript; charset=utf-8"},
		{name: "OKScriptIdentityPreferred", path: "/assets/index-abc123.js", accept: "identity, br;q=0.5", wantVary: true, wantCache: immutable, wantType: "text/javascript; charset=utf-8"},
		{name: "OKStylesheetGzipOnly", path: "/assets/index-abc123.css", accept: "br, gzip", wantCoding: "gzip", wantVary: true, wantCache: immutable, wantType: "text/css; charset=utf-8"},
		{name: "OKIndexBrotli", path: "/", accept: "br, gzip", wantCoding: "br", wantVary: true, wantCache: "no-cache", wantType: "text/html; charset=utf-8"},
		{name: "OKDeepLinkGzip", path: "/tables/42", accept: "gzip", wantCoding: "gzip", wantVary: true, wantCache: "no-cache", wantType: "text/html; charset=utf-8"},
		{name: "OKDocsBrotli", path: "/api/docs", accept: "br, gzip", wantCoding: "br", wantVary: true, wantCache: "no-cache", wantType: "text/html; charset=utf-8"},
		{name: "OKIconHasNoVariant", path: "/favicon.svg", accept: "br, gzip", wantCache: "no-cache", wantType: "image/svg+xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := map[string]string{"Accept": "text/html"}
			if tt.accept != "" {
				headers["Accept-Encoding"] = tt.accept
			}
			res, body := rawGet(t, "GET", srv.URL+tt.path, headers)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("got status %d, want 200", res.StatusCode)
			}
			h := res.Header
			if got := h.Get("Content-Encoding"); got != tt.wantCoding {
				t.Errorf("got Content-Encoding %q, want %q", got, tt.wantCoding)
			}
			if got := strings.Join(h.Values("Vary"), ", "); (got == "Accept-Encoding") != tt.wantVary {
				t.Errorf("got Vary %q, want Accept-Encoding: %v", got, tt.wantVary)
			}
			if got := h.Get("Cache-Control"); got != tt.wantCache {
				t.Errorf("got Cache-Control %q, want %q", got, tt.wantCache)
			}
			if got := h.Get("Content-Type"); got != tt.wantType {
				t.Errorf("got Content-Type %q, want %q", got, tt.wantType)
			}
			if got, want := h.Get("Content-Length"), fmt.Sprint(len(body)); got != want {
				t.Errorf("got Content-Length %q, want %s", got, want)
			}
			name := strings.TrimPrefix(tt.path, "/")
			if _, ok := plain[name]; !ok {
				name = "index.html"
			}
			if !bytes.Equal(decoded(t, tt.wantCoding, body), plain[name]) {
				t.Errorf("the decoded body is not %s", name)
			}
		})
	}
}

// Each variant is its own representation: its own ETag, conditional
// requests and ranges on its own bytes.
func TestAppFileVariantsValidateApart(t *testing.T) {
	app, _ := compressedApp(t)
	f := newFixture(t, func(o *webui.Options) { o.App = app })
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	url := srv.URL + "/assets/index-abc123.js"
	tags := map[string]string{}
	for _, accept := range []string{"br", "gzip", "identity"} {
		res, _ := rawGet(t, "GET", url, map[string]string{"Accept-Encoding": accept})
		tag := res.Header.Get("ETag")
		if tag == "" {
			t.Fatalf("%s: no ETag", accept)
		}
		for other, otherTag := range tags {
			if tag == otherTag {
				t.Fatalf("%s and %s share the ETag %s", accept, other, tag)
			}
		}
		tags[accept] = tag
	}
	res, body := rawGet(t, "GET", url, map[string]string{"Accept-Encoding": "br", "If-None-Match": tags["br"]})
	if res.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Fatalf("revalidating the brotli body: got %d, want 304", res.StatusCode)
	}
	res, _ = rawGet(t, "GET", url, map[string]string{"Accept-Encoding": "br", "If-None-Match": tags["gzip"]})
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "br" {
		t.Fatalf("a gzip ETag validated the brotli body: got %d %q, want 200 br", res.StatusCode, res.Header.Get("Content-Encoding"))
	}
	// A range is a range of the bytes sent, here the gzip ones.
	res, body = rawGet(t, "GET", url, map[string]string{"Accept-Encoding": "gzip", "Range": "bytes=0-9"})
	if res.StatusCode != http.StatusPartialContent || res.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(body, app["assets/index-abc123.js.gz"].Data[:10]) {
		t.Fatalf("range of the gzip body: got %d %q %x", res.StatusCode, res.Header.Get("Content-Encoding"), body)
	}
	res, body = rawGet(t, "HEAD", url, map[string]string{"Accept-Encoding": "br"})
	if res.Header.Get("Content-Encoding") != "br" || res.Header.Get("Content-Length") != fmt.Sprint(len(app["assets/index-abc123.js.br"].Data)) || len(body) != 0 {
		t.Fatalf("HEAD: got %q, length %s, body %d bytes", res.Header.Get("Content-Encoding"), res.Header.Get("Content-Length"), len(body))
	}
}

func TestAPIAnswersCompressed(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	tf := startedTable(t, f)
	// Two long lines make the event list well over the minimum size.
	for i := range 2 {
		text := strings.Repeat(fmt.Sprintf("Line %d: the rain drums on the inn's roof. ", i), 60)
		if _, err := f.services.Table.PostMessage(ctx, tf.Owner, tf.LobbyID, table.MessageInput{Kind: "ooc", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	events := fmt.Sprintf("/api/sessions/%d/events?after=0", tf.LobbyID)
	tests := []struct {
		name, path, accept string
		as                 table.Caller
		wantCoding         string
	}{
		{name: "OKLargeJSONGzipped", path: "/api/openapi.json", accept: "gzip, deflate, br, zstd", wantCoding: "gzip"},
		{name: "OKEventListGzipped", path: events, accept: "gzip", as: tf.Owner, wantCoding: "gzip"},
		{name: "OKGzipRefused", path: events, accept: "gzip;q=0, br", as: tf.Owner},
		{name: "OKNoAcceptEncoding", path: events, as: tf.Owner},
		{name: "OKSmallJSONPlain", path: "/api/health", accept: "gzip"},
		{name: "OKSmallErrorPlain", path: "/api/nope", accept: "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+tt.path, nil)
			if tt.accept != "" {
				req.Header.Set("Accept-Encoding", tt.accept)
			}
			if tt.as.UserID != 0 {
				addCookie(req, tt.as)
			}
			res, err := rawClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if got := res.Header.Get("Content-Encoding"); got != tt.wantCoding {
				t.Errorf("got Content-Encoding %q, want %q", got, tt.wantCoding)
			}
			if got := res.Header.Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("got Vary %q, want Accept-Encoding", got)
			}
			if !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
				t.Errorf("got Content-Type %q, want JSON", res.Header.Get("Content-Type"))
			}
			plain := decoded(t, tt.wantCoding, body)
			if !json.Valid(plain) {
				t.Fatalf("the decoded body is not JSON: %.200s", plain)
			}
			if tt.wantCoding != "" && len(body) >= len(plain) {
				t.Errorf("compressed %d bytes into %d", len(plain), len(body))
			}
		})
	}
}

// An event stream is never held back by compression: with gzip accepted,
// the first event arrives while the narrator is still writing.
func TestEventStreamNotBuffered(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	fake := llmtest.New(t)
	me := tabletest.NewUser(t, f.services.Table, "Solo")
	narrateWith(t, srv, me, fake.URL(), nil)
	sc := decode[struct{ ID int64 }](t, send(t, srv, me, "POST", "/api/scenarios",
		`{"title":"Keep","premise":"A keep.","plot_essentials":"","ai_instructions":"","authors_note":"","opening":"The gate is shut.","stat_schema":{},"cards":[]}`), 201)
	page := decode[struct {
		Adventure struct{ ID int64 } `json:"adventure"`
	}](t, send(t, srv, me, "POST", fmt.Sprintf("/api/scenarios/%d/play", sc.ID), `{"persona_name":"Ash","persona_pronouns":"","persona_desc":""}`), 201)

	const delay = 700 * time.Millisecond
	fake.Push(llmtest.Reply{Chunks: []string{"The gate ", "creaks ", "open."}, FinishReason: "stop", Delay: delay})
	req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/adventures/%d/turns", srv.URL, page.Adventure.ID), strings.NewReader(`{"mode":"do","text":"push the gate"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept-Encoding", "gzip")
	addCookie(req, me)
	res, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Encoding") != "" || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("got %q %q, want a plain text/event-stream", res.Header.Get("Content-Encoding"), res.Header.Get("Content-Type"))
	}
	sc2 := bufio.NewScanner(res.Body)
	var first, last time.Time
	var events int
	for sc2.Scan() {
		if !strings.HasPrefix(sc2.Text(), "data: ") {
			continue
		}
		if events == 0 {
			first = time.Now()
		}
		events++
		last = time.Now()
	}
	// Three chunks each wait delay: a stream held until its end would
	// deliver every event at once.
	if events < 3 || last.Sub(first) < 2*delay {
		t.Fatalf("got %d events over %v, want the first well before the last (at least %v)", events, last.Sub(first), 2*delay)
	}
}

// A long poll answers as soon as the event is written, compressed or not.
func TestLongPollAnswersPromptly(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	tf := startedTable(t, f)
	page, err := f.services.Table.ListEvents(ctx, tf.Owner, tf.LobbyID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{20, 3000} { // below and above the minimum size
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			type answer struct {
				res  *http.Response
				body []byte
				err  error
				at   time.Time
			}
			done := make(chan answer, 1)
			go func() {
				req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/sessions/%d/events/wait?after=%d&timeout=30", srv.URL, tf.LobbyID, page.Cursor), nil)
				req.Header.Set("Accept-Encoding", "gzip")
				addCookie(req, tf.Seated)
				res, err := rawClient.Do(req)
				a := answer{res: res, err: err}
				if err == nil {
					a.body, a.err = io.ReadAll(res.Body)
					res.Body.Close()
				}
				a.at = time.Now()
				done <- a
			}()
			time.Sleep(300 * time.Millisecond) // let the poll start waiting
			text := strings.Repeat("x", size)
			posted := time.Now()
			if _, err := f.services.Table.PostMessage(ctx, tf.Owner, tf.LobbyID, table.MessageInput{Kind: "ooc", Text: text}); err != nil {
				t.Fatal(err)
			}
			var a answer
			select {
			case a = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the long poll did not answer within 10s of the event")
			}
			if a.err != nil {
				t.Fatal(a.err)
			}
			var got table.EventPage
			if err := json.Unmarshal(decoded(t, a.res.Header.Get("Content-Encoding"), a.body), &got); err != nil || len(got.Events) == 0 {
				t.Fatalf("got %d %.200s (%v), want the new event", a.res.StatusCode, a.body, err)
			}
			if wantGzip := size > 1024; (a.res.Header.Get("Content-Encoding") == "gzip") != wantGzip {
				t.Errorf("got Content-Encoding %q for a %d-character line", a.res.Header.Get("Content-Encoding"), size)
			}
			if d := a.at.Sub(posted); d > 5*time.Second {
				t.Errorf("the long poll answered %v after the event", d)
			}
			page.Cursor = got.Cursor
		})
	}
}
