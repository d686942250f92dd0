package main

import (
	"encoding/json"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeConfigs are the README's client configuration blocks: the fenced
// block after each "<!-- client-config: NAME -->" marker, by name.
func readmeConfigs(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- client-config: ([a-z-]+) -->\\s*```[a-z]*\\n(.*?)\\n```")
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
		if _, dup := out[m[1]]; dup {
			t.Fatalf("README has two client-config blocks named %s", m[1])
		}
		out[m[1]] = m[2]
	}
	return out
}

// shellWords splits a POSIX shell command the way sh would for what the
// README uses: words, single and double quotes, backslash escapes and
// line continuations. It reports an unclosed quote.
func shellWords(s string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i++ // a line continuation
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.ContainsRune("\"\\$`", rune(s[j+1])) {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, false
			}
			i = j
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.IndexByte("<>|;&", c) >= 0:
			return nil, false // unquoted: sh would redirect or chain
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// bearerToken is how the README writes a seat's token.
var bearerToken = regexp.MustCompile(`^Bearer at_ai_<id>_<secret>$`)

// checkMCPURL: an http(s) URL of the server's /mcp endpoint.
func checkMCPURL(t *testing.T, block, raw string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "/mcp" {
		t.Errorf("%s: url %q is not the server's http(s)://host/mcp", block, raw)
	}
}

// jsonServer decodes a JSON configuration block and returns the server
// entry adventure-table under key (mcpServers or servers), with the
// whole document.
func jsonServer(t *testing.T, block, text, key string) (map[string]any, map[string]any) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", block, err, text)
	}
	servers, ok := doc[key].(map[string]any)
	if !ok {
		t.Fatalf("%s: no %q object: %s", block, key, text)
	}
	server, ok := servers["adventure-table"].(map[string]any)
	if !ok {
		t.Fatalf("%s: no %s.adventure-table object: %s", block, key, text)
	}
	url, _ := server["url"].(string)
	checkMCPURL(t, block, url)
	return doc, server
}

// authorization is a server entry's headers.Authorization.
func authorization(t *testing.T, block string, server map[string]any) string {
	t.Helper()
	headers, ok := server["headers"].(map[string]any)
	if !ok || len(headers) != 1 {
		t.Fatalf("%s: headers %v, want only Authorization", block, server["headers"])
	}
	auth, _ := headers["Authorization"].(string)
	return auth
}

// TestReadmeClientConfigs parses every client configuration the README
// shows, in the format its client reads: Claude Code's `claude mcp add`
// command and project .mcp.json, VS Code's .vscode/mcp.json and Cursor's
// mcp.json, each with the seat's token as a bearer header.
func TestReadmeClientConfigs(t *testing.T) {
	blocks := readmeConfigs(t)
	for _, name := range []string{"claude-code", "claude-code-json", "vscode", "cursor"} {
		if _, ok := blocks[name]; !ok {
			t.Fatalf("README lacks the client-config block %s (has %d)", name, len(blocks))
		}
	}

	t.Run("claude-code", func(t *testing.T) {
		words, ok := shellWords(blocks["claude-code"])
		if !ok {
			t.Fatalf("not one shell command: %q", blocks["claude-code"])
		}
		if len(words) < 3 || strings.Join(words[:3], " ") != "claude mcp add" {
			t.Fatalf("got %q, want claude mcp add …", words)
		}
		// claude mcp add [options] <name> <url>: options take one value each.
		flags := map[string][]string{}
		var args []string
		for i := 3; i < len(words); i++ {
			w := words[i]
			if !strings.HasPrefix(w, "-") {
				args = append(args, w)
				continue
			}
			switch w {
			case "--transport", "-t", "--header", "-H", "--scope", "-s":
				if i+1 >= len(words) {
					t.Fatalf("%s has no value", w)
				}
				flags[strings.TrimLeft(w, "-")] = append(flags[strings.TrimLeft(w, "-")], words[i+1])
				i++
			default:
				t.Fatalf("unknown option %s", w)
			}
		}
		if got := flags["transport"]; len(got) != 1 || got[0] != "http" {
			t.Errorf("--transport %q, want http", got)
		}
		if len(args) != 2 || args[0] != "adventure-table" {
			t.Fatalf("arguments %q, want the name adventure-table and the URL", args)
		}
		checkMCPURL(t, "claude-code", args[1])
		h := flags["header"]
		if len(h) != 1 {
			t.Fatalf("--header %q, want one", h)
		}
		name, value, ok := strings.Cut(h[0], ": ")
		if !ok || name != "Authorization" || !bearerToken.MatchString(value) {
			t.Errorf("--header %q, want \"Authorization: Bearer at_ai_<id>_<secret>\"", h[0])
		}
	})

	t.Run("claude-code-json", func(t *testing.T) {
		_, server := jsonServer(t, "claude-code-json", blocks["claude-code-json"], "mcpServers")
		if server["type"] != "http" {
			t.Errorf("type %v, want http", server["type"])
		}
		if auth := authorization(t, "claude-code-json", server); !bearerToken.MatchString(auth) {
			t.Errorf("Authorization %q", auth)
		}
	})

	t.Run("vscode", func(t *testing.T) {
		doc, server := jsonServer(t, "vscode", blocks["vscode"], "servers")
		if _, ok := doc["mcpServers"]; ok {
			t.Error("VS Code reads servers, not mcpServers")
		}
		if server["type"] != "http" {
			t.Errorf("type %v, want http", server["type"])
		}
		// The token comes from an input VS Code prompts for and keeps secret.
		auth := authorization(t, "vscode", server)
		m := regexp.MustCompile(`^Bearer \$\{input:([a-z-]+)\}$`).FindStringSubmatch(auth)
		if m == nil {
			t.Fatalf("Authorization %q, want Bearer ${input:<id>}", auth)
		}
		inputs, _ := doc["inputs"].([]any)
		declared := false
		for _, in := range inputs {
			o, _ := in.(map[string]any)
			if o["id"] == m[1] {
				declared = o["type"] == "promptString" && o["password"] == true && o["description"] != ""
			}
		}
		if !declared {
			t.Errorf("input %s is not declared as a password promptString: %v", m[1], doc["inputs"])
		}
	})

	t.Run("cursor", func(t *testing.T) {
		doc, server := jsonServer(t, "cursor", blocks["cursor"], "mcpServers")
		if _, ok := doc["servers"]; ok {
			t.Error("Cursor reads mcpServers, not servers")
		}
		for k := range server {
			if k != "url" && k != "headers" {
				t.Errorf("unexpected key %q: a remote server in Cursor is url and headers", k)
			}
		}
		if auth := authorization(t, "cursor", server); !bearerToken.MatchString(auth) {
			t.Errorf("Authorization %q", auth)
		}
	})
}

// TestShellWords: the tokenizer the README test relies on.
func TestShellWords(t *testing.T) {
	got, ok := shellWords("claude mcp add --transport http x http://h/mcp \\\n  --header \"Authorization: Bearer a\\\"b\" 'c d'")
	want := []string{"claude", "mcp", "add", "--transport", "http", "x", "http://h/mcp", "--header", `Authorization: Bearer a"b`, "c d"}
	if !ok || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q (%v), want %q", got, ok, want)
	}
	for _, bad := range []string{`a "b`, `a 'b`, `a <b>`, `a | b`} {
		if _, ok := shellWords(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
