package webui

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// apiRoute describes one JSON route for the router and the OpenAPI document.
type apiRoute struct {
	Method  string
	Path    string // OpenAPI style: /api/rooms/{id}
	Tag     string
	Summary string
	Request reflect.Type // JSON body, nil for none
	// Response is the success body; with Stream, the data of one event.
	Response reflect.Type
	Status   int // success status; 200 when zero
	Errors   []apperr.Code
	// Query names the optional integer query parameters; TextQuery the
	// optional text ones.
	Query, TextQuery []string
	// Stream: the success answer is text/event-stream.
	Stream bool
	// RawRequest and RawResponse list the media types of a body sent as
	// bytes (an uploaded or served image) instead of JSON.
	RawRequest, RawResponse []string
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

var pathParam = regexp.MustCompile(`\{(\w+)\}`)

// route mounts h behind the given middleware and records r for the
// OpenAPI document.
func (s *Server) route(r apiRoute, h gin.HandlerFunc, middleware ...gin.HandlerFunc) {
	s.routes = append(s.routes, r)
	s.engine.Handle(r.Method, pathParam.ReplaceAllString(r.Path, ":$1"), append(append(middleware, s.userLimit(r)...), h)...)
}

// tagDescriptions name the route groups of the document.
var tagDescriptions = map[string]string{
	"meta":       "Health and the features of this build",
	"people":     "The caller's identity",
	"account":    "Registration, login, logout, password and account deletion",
	"rooms":      "Rooms, members and invites",
	"campaigns":  "Campaigns and their seats",
	"characters": "The caller's characters",
	"sessions":   "Session lifecycle and the resume view",
	"live":       "The live table: events, messages, the stage",
	"rolls":      "Checks, rolls, pending actions and character state",
	"combat":     "Encounters: initiative, turns and rounds, attacks and damage, conditions, death saves",
	"ai":         "Seats controlled by AI agents over MCP",
	"solo":       "Solo adventures narrated by a language model",
	"scripting":  "AI Dungeon compatible scenario scripts: the script console",
}

// builtDocs remembers the documents built in this process, each with the
// version and routes it was built from: a server (and every test fixture)
// with the same routes gets the same bytes without generating the schemas
// again. A server's routes are fixed once New has mounted them.
var builtDocs struct {
	sync.Mutex
	docs []builtDoc
}

type builtDoc struct {
	version string
	routes  []apiRoute
	doc     []byte
}

// openAPIDoc returns the OpenAPI document of s's routes, built once per
// distinct version and route list in the process (buildOpenAPI).
func (s *Server) openAPIDoc() ([]byte, error) {
	builtDocs.Lock()
	defer builtDocs.Unlock()
	for _, b := range builtDocs.docs {
		if b.version == s.opts.Version && reflect.DeepEqual(b.routes, s.routes) {
			return b.doc, nil
		}
	}
	doc, err := s.buildOpenAPI()
	if err != nil {
		return nil, err
	}
	builtDocs.docs = append(builtDocs.docs, builtDoc{version: s.opts.Version, routes: slices.Clone(s.routes), doc: doc})
	return doc, nil
}

// buildOpenAPI generates the OpenAPI 3.1 document from the recorded routes
// and the Go types of their bodies. Each named Go type is one component
// schema, referenced wherever a body carries it.
func (s *Server) buildOpenAPI() ([]byte, error) {
	roots := []reflect.Type{typeOf[ErrorBody]()}
	for _, r := range s.routes {
		roots = append(roots, r.Request, r.Response)
	}
	sch, err := newSchemaSet(roots)
	if err != nil {
		return nil, err
	}
	errorBody := jsonContent(sch.ref(typeOf[ErrorBody]()))
	paths := map[string]map[string]any{}
	tags := map[string]bool{}
	for _, r := range s.routes {
		tags[r.Tag] = true
		op := map[string]any{
			"summary":     r.Summary,
			"tags":        []string{r.Tag},
			"operationId": operationID(r),
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(r.Path, -1) {
			schema := map[string]any{"type": "integer", "minimum": 1}
			if m[1] == "slug" {
				// a name of the server's, such as a starter scenario's
				schema = map[string]any{"type": "string", "pattern": "^[a-z0-9-]+$"}
			}
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": schema})
		}
		for _, q := range r.Query {
			params = append(params, map[string]any{"name": q, "in": "query", "schema": map[string]any{"type": "integer"}})
		}
		for _, q := range r.TextQuery {
			params = append(params, map[string]any{"name": q, "in": "query", "schema": map[string]any{"type": "string"}})
		}
		if params != nil {
			op["parameters"] = params
		}
		// Every route may fail inside, find the database out of reach
		// (503 with Retry-After) or meet a hosted server's limits (429
		// with Retry-After); a path id that is no number is
		// not_found, a body that does not decode invalid_request, and a
		// write from another origin origin_forbidden.
		errs := append([]apperr.Code{apperr.Internal, apperr.DatabaseUnavailable, apperr.RateLimited}, r.Errors...)
		if len(params) > len(r.Query)+len(r.TextQuery) {
			errs = append(errs, apperr.NotFound)
		}
		switch {
		case r.Request != nil:
			sc, err := sch.of(r.Request)
			if err != nil {
				return nil, fmt.Errorf("%s %s request: %w", r.Method, r.Path, err)
			}
			op["requestBody"] = map[string]any{"required": true, "content": jsonContent(sc)}
			errs = append(errs, apperr.InvalidRequest)
		case r.RawRequest != nil:
			content := map[string]any{}
			for _, m := range r.RawRequest {
				content[m] = map[string]any{}
			}
			op["requestBody"] = map[string]any{"required": true, "content": content}
		}
		// A write from another origin, and in local mode any request whose
		// Host is not this machine, is origin_forbidden.
		errs = append(errs, apperr.OriginForbidden)
		status := r.Status
		if status == 0 {
			status = http.StatusOK
		}
		var content map[string]any
		switch {
		case r.RawResponse != nil:
			content = map[string]any{}
			for _, m := range r.RawResponse {
				content[m] = map[string]any{}
			}
		case r.Stream:
			// OpenAPI 3.1 has no schema for each event of a stream (3.2's
			// itemSchema); contentSchema names it.
			content = map[string]any{"text/event-stream": map[string]any{"schema": map[string]any{
				"type": "string", "contentMediaType": "text/event-stream", "contentSchema": sch.ref(r.Response),
				"description": "Server-Sent Events: the data of each event is one JSON object of contentSchema",
			}}}
		default:
			sc, err := sch.of(r.Response)
			if err != nil {
				return nil, fmt.Errorf("%s %s response: %w", r.Method, r.Path, err)
			}
			content = jsonContent(sc)
		}
		responses := map[string]any{fmt.Sprint(status): map[string]any{"description": http.StatusText(status), "content": content}}
		// Group the documented error codes by status.
		byStatus := map[int][]string{}
		for _, code := range errs {
			if st := statusOf(code); !slices.Contains(byStatus[st], string(code)) {
				byStatus[st] = append(byStatus[st], string(code))
			}
		}
		// A body over its limit is 413 invalid_request (statusOfError),
		// unless the route has a 413 code of its own (a stage image).
		if r.Request != nil || r.RawRequest != nil && len(byStatus[http.StatusRequestEntityTooLarge]) == 0 {
			byStatus[http.StatusRequestEntityTooLarge] = append(byStatus[http.StatusRequestEntityTooLarge], string(apperr.InvalidRequest))
		}
		for st, codes := range byStatus {
			sort.Strings(codes)
			responses[fmt.Sprint(st)] = map[string]any{
				"description":   "Error codes: " + strings.Join(codes, ", "),
				"content":       errorBody,
				"x-error-codes": codes,
			}
		}
		op["responses"] = responses
		if paths[r.Path] == nil {
			paths[r.Path] = map[string]any{}
		}
		paths[r.Path][strings.ToLower(r.Method)] = op
	}
	var tagList []any
	for _, t := range slices.Sorted(maps.Keys(tags)) {
		if tagDescriptions[t] == "" {
			return nil, fmt.Errorf("tag %q has no description in tagDescriptions", t)
		}
		tagList = append(tagList, map[string]any{"name": t, "description": tagDescriptions[t]})
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Adventure Table API",
			"version":     s.opts.Version,
			"description": "JSON API of the Adventure Table server. Errors carry a stable code in error.code.",
			"license":     map[string]any{"name": "Proprietary", "identifier": "LicenseRef-Proprietary"},
		},
		"servers": []any{map[string]any{"url": "/", "description": "this server"}},
		"tags":    tagList,
		// The cookie is optional: a browser without one becomes a new guest.
		"security": []any{map[string]any{"browserCookie": []string{}}, map[string]any{}},
		"paths":    paths,
		"components": map[string]any{
			"schemas": sch.components,
			"securitySchemes": map[string]any{"browserCookie": map[string]any{
				"type": "apiKey", "in": "cookie", "name": auth.BrowserCookieName,
				"description": "The signed user id, set by the server on the first call (a new guest)",
			}},
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}

func jsonContent(schema any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

// schemaSet holds the component schemas of the document: one per named
// struct type reachable from a route body, and one per type in
// table.WireSchemas.
type schemaSet struct {
	names      map[reflect.Type]string
	refs       map[reflect.Type]*jsonschema.Schema // type → {$ref}, for jsonschema.ForType
	components map[string]*jsonschema.Schema
}

var (
	timeType      = typeOf[time.Time]()
	jsonMarshaler = typeOf[json.Marshaler]()
	textMarshaler = typeOf[encoding.TextMarshaler]()
)

// soloWireSchemas are the schemas of the solo types that marshal themselves.
// Only this document publishes them (the MCP door has no solo tools).
func soloWireSchemas() map[reflect.Type]*jsonschema.Schema {
	number := &jsonschema.Schema{Type: "number"}
	return map[reflect.Type]*jsonschema.Schema{
		typeOf[narrative.Band](): {
			Type: "array", Description: "[lo, hi, label]: the label of the values from lo to hi",
			PrefixItems: []*jsonschema.Schema{number, number, {Type: "string"}},
			MinItems:    jsonschema.Ptr(3), MaxItems: jsonschema.Ptr(3),
		},
	}
}

func newSchemaSet(roots []reflect.Type) (*schemaSet, error) {
	wire := table.WireSchemas()
	maps.Copy(wire, soloWireSchemas())
	var named []reflect.Type
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) error
	walk = func(t reflect.Type) error {
		if t.Kind() == reflect.Pointer {
			if k := t.Elem().Kind(); k == reflect.Slice || k == reflect.Map {
				// The document says slices and maps are never null.
				return fmt.Errorf("%s: a pointer to a %s has no schema here", t, k)
			}
			return walk(t.Elem())
		}
		if seen[t] || t == timeType {
			return nil
		}
		seen[t] = true
		if _, ok := wire[t]; ok {
			named = append(named, t)
			return nil
		}
		for _, m := range []reflect.Type{jsonMarshaler, textMarshaler} {
			if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
				return fmt.Errorf("%s marshals itself: give it a schema in table.WireSchemas", t)
			}
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array:
			if t.Elem().Kind() == reflect.Uint8 {
				return fmt.Errorf("%s is base64 text in JSON: give it a schema in table.WireSchemas", t)
			}
			return walk(t.Elem())
		case reflect.Map:
			return walk(t.Elem())
		case reflect.Struct:
			if t.Name() != "" {
				named = append(named, t)
			}
			for _, f := range reflect.VisibleFields(t) {
				if f.Anonymous || !f.IsExported() || f.Tag.Get("json") == "-" {
					continue
				}
				if err := walk(f.Type); err != nil {
					return fmt.Errorf("%s.%s: %w", t.Name(), f.Name, err)
				}
			}
		}
		return nil
	}
	for _, t := range roots {
		if t == nil {
			continue
		}
		if err := walk(t); err != nil {
			return nil, err
		}
	}

	// A type is named by its Go name; types of different packages that
	// share a name are named with their package in front.
	byName := map[string][]reflect.Type{}
	for _, t := range named {
		byName[t.Name()] = append(byName[t.Name()], t)
	}
	set := &schemaSet{names: map[reflect.Type]string{}, refs: map[reflect.Type]*jsonschema.Schema{}, components: map[string]*jsonschema.Schema{}}
	for name, ts := range byName {
		for _, t := range ts {
			if len(ts) > 1 {
				pkg := path.Base(t.PkgPath())
				name = strings.ToUpper(pkg[:1]) + pkg[1:] + t.Name()
			}
			if strings.ContainsAny(name, "[]") {
				return nil, fmt.Errorf("%s: generic types have no component name", t)
			}
			set.names[t] = name
			set.refs[t] = &jsonschema.Schema{Ref: "#/components/schemas/" + name}
		}
	}
	for _, t := range named {
		var sc *jsonschema.Schema
		if w, ok := wire[t]; ok {
			sc = w.CloneSchemas()
		} else {
			// jsonschema.ForType flattens embedded structs only when
			// they have no schema of their own.
			others := maps.Clone(set.refs)
			delete(others, t)
			for _, f := range reflect.VisibleFields(t) {
				if f.Anonymous {
					delete(others, f.Type)
				}
			}
			var err error
			if sc, err = jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: others}); err != nil {
				return nil, err
			}
		}
		set.components[set.names[t]] = fixNulls(sc)
	}
	return set, nil
}

// ref is the reference to the component of the named type t.
func (s *schemaSet) ref(t reflect.Type) *jsonschema.Schema { return s.refs[t] }

// of is the schema of a body of type t.
func (s *schemaSet) of(t reflect.Type) (*jsonschema.Schema, error) {
	sc, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: s.refs})
	if err != nil {
		return nil, err
	}
	return fixNulls(sc), nil
}

// fixNulls corrects two things jsonschema.ForType says about null. A pointer
// to a referenced type becomes {"$ref", "type": ["null"]}, which nothing
// satisfies: it becomes "anyOf" the reference and null. A slice may be null;
// the server sends empty slices as [] (the route tests validate every
// answer against this document), so a slice is an array.
func fixNulls(sc *jsonschema.Schema) *jsonschema.Schema {
	if sc == nil {
		return nil
	}
	if sc.Ref != "" && slices.Equal(sc.Types, []string{"null"}) {
		return &jsonschema.Schema{
			Description: sc.Description,
			AnyOf:       []*jsonschema.Schema{{Ref: sc.Ref}, {Type: "null"}},
		}
	}
	if slices.Equal(sc.Types, []string{"null", "array"}) {
		sc.Types, sc.Type = nil, "array"
	}
	for k, p := range sc.Properties {
		sc.Properties[k] = fixNulls(p)
	}
	sc.Items = fixNulls(sc.Items)
	sc.AdditionalProperties = fixNulls(sc.AdditionalProperties)
	return sc
}

// operationID turns "GET /api/meta/capabilities" into "getMetaCapabilities".
func operationID(r apiRoute) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(r.Method))
	for _, part := range strings.Split(strings.TrimPrefix(r.Path, "/api/"), "/") {
		part = strings.Trim(part, "{}")
		for _, w := range strings.FieldsFunc(part, func(r rune) bool { return r == '_' || r == '-' }) {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}
