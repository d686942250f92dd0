package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// mcpProtocol is the MCP revision the server speaks: stateless, one POST
// per call, the method and tool name repeated in headers.
const mcpProtocol = "2026-07-28"

// newTransport is an HTTP transport that keeps up to conns connections
// open to one host; every long poll holds one.
func newTransport(conns int) *http.Transport {
	return &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns + 16,
		MaxIdleConnsPerHost: conns + 16,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

// apiError is a failed API call: the status and the error code the
// server sent, if any.
type apiError struct {
	Method, Path string
	Status       int
	Code, Body   string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d %s %.200s", e.Method, e.Path, e.Status, e.Code, e.Body)
}

// api calls the JSON API as one browser: it carries that browser's
// session cookie.
type api struct {
	base   string
	client *http.Client
	cookie string // "name=value", set from the first response that sets one
}

func newAPI(base string, client *http.Client) *api { return &api{base: base, client: client} }

// do sends a JSON request and decodes a 2xx answer into out (if not nil).
func (a *api) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.cookie != "" {
		req.Header.Set("Cookie", a.cookie)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Value != "" && c.MaxAge >= 0 {
			a.cookie = c.Name + "=" + c.Value
		}
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		return &apiError{Method: method, Path: path, Status: resp.StatusCode, Code: e.Error.Code, Body: string(raw)}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: decode: %w", method, path, err)
	}
	return nil
}

// mcpClient sends MCP tools/call requests with one bearer token.
type mcpClient struct {
	url, token string
	client     *http.Client
}

// call performs one tools/call and decodes the result's
// structuredContent into out (if not nil). A JSON-RPC error or a result
// with isError is an error. The answer may be JSON or a server-sent
// event stream; the call returns when the response message has arrived.
func (m *mcpClient) call(ctx context.Context, id int64, tool string, args, out any) error {
	params, err := json.Marshal(map[string]any{
		"name":      tool,
		"arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    mcpProtocol,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		},
	})
	if err != nil {
		return err
	}
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", mcpProtocol)
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", tool)
	h.Set("Authorization", "Bearer "+m.token)
	resp, err := m.client.Do(req)
	if err != nil {
		return err
	}
	// Drain the rest so the keep-alive connection is reused.
	defer func() { _, _ = io.Copy(io.Discard, resp.Body); resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return fmt.Errorf("mcp %s: HTTP %d: %s", tool, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		_, err = mcpResult(b, out)
		return err
	}
	// An event's data is its "data:" lines joined; events end at a blank
	// line. Notifications are skipped until the response arrives.
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data []byte
	for {
		more := sc.Scan()
		line := sc.Bytes()
		if more && len(line) > 0 {
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				if len(data) > 0 {
					data = append(data, '\n')
				}
				data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
			}
			continue
		}
		if len(data) > 0 {
			if isResp, err := mcpResult(data, out); isResp {
				return err
			}
			data = data[:0]
		}
		if !more {
			if err := sc.Err(); err != nil {
				return err
			}
			return fmt.Errorf("mcp %s: the event stream ended without a response", tool)
		}
	}
}

// mcpResult decodes one JSON-RPC message; isResp is false for anything
// that is not a response.
func mcpResult(b []byte, out any) (isResp bool, err error) {
	var m struct {
		Result *struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return true, fmt.Errorf("mcp: bad JSON: %w", err)
	}
	switch {
	case m.Error != nil:
		return true, fmt.Errorf("mcp: JSON-RPC error %d: %s", m.Error.Code, m.Error.Message)
	case m.Result == nil:
		return false, nil
	case m.Result.IsError:
		return true, fmt.Errorf("mcp: tool error: %.300s", m.Result.StructuredContent)
	case out != nil:
		return true, json.Unmarshal(m.Result.StructuredContent, out)
	}
	return true, nil
}

// marker is what atload writes into a message so that a waiter can tell
// which post it received and when it was sent: "atload p=<n> t=<unix ns>"
// for a public post, "atload w=<n> t=<unix ns>" for a whisper.
type marker struct {
	kind byte // 'p' or 'w'
	n    int
	sent time.Time
}

func (m marker) String() string {
	return fmt.Sprintf("atload %c=%d t=%d", m.kind, m.n, m.sent.UnixNano())
}

// parseMarker finds a marker in a message text.
func parseMarker(text string) (marker, bool) {
	_, rest, ok := strings.Cut(text, "atload ")
	if !ok {
		return marker{}, false
	}
	f := strings.Fields(rest)
	if len(f) < 2 || len(f[0]) < 3 || f[0][1] != '=' || (f[0][0] != 'p' && f[0][0] != 'w') {
		return marker{}, false
	}
	n, err := strconv.Atoi(f[0][2:])
	if err != nil {
		return marker{}, false
	}
	ts, ok := strings.CutPrefix(f[1], "t=")
	if !ok {
		return marker{}, false
	}
	ns, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return marker{}, false
	}
	return marker{kind: f[0][0], n: n, sent: time.Unix(0, ns)}, true
}

var errStopped = errors.New("stopped")
