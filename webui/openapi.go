package webui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// apiRoute describes one JSON route for the router and the OpenAPI document.
type apiRoute struct {
	Method   string
	Path     string // OpenAPI style: /api/rooms/{id}
	Tag      string
	Summary  string
	Request  reflect.Type // JSON body, nil for none
	Response reflect.Type // success body
	Status   int          // success status; 200 when zero
	Errors   []apperr.Code
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

var pathParam = regexp.MustCompile(`\{(\w+)\}`)

// route mounts h behind the given middleware and records r for the
// OpenAPI document.
func (s *Server) route(r apiRoute, h gin.HandlerFunc, middleware ...gin.HandlerFunc) {
	s.routes = append(s.routes, r)
	s.engine.Handle(r.Method, pathParam.ReplaceAllString(r.Path, ":$1"), append(middleware, h)...)
}

// buildOpenAPI generates the OpenAPI 3.1 document from the recorded routes
// and the Go types of their bodies.
func (s *Server) buildOpenAPI() ([]byte, error) {
	errSchema, err := schemaOf(typeOf[ErrorBody]())
	if err != nil {
		return nil, err
	}
	paths := map[string]map[string]any{}
	for _, r := range s.routes {
		op := map[string]any{
			"summary":     r.Summary,
			"tags":        []string{r.Tag},
			"operationId": operationID(r),
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(r.Path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		if params != nil {
			op["parameters"] = params
		}
		if r.Request != nil {
			sc, err := schemaOf(r.Request)
			if err != nil {
				return nil, fmt.Errorf("%s %s request: %w", r.Method, r.Path, err)
			}
			op["requestBody"] = map[string]any{"required": true, "content": jsonContent(sc)}
		}
		sc, err := schemaOf(r.Response)
		if err != nil {
			return nil, fmt.Errorf("%s %s response: %w", r.Method, r.Path, err)
		}
		status := r.Status
		if status == 0 {
			status = http.StatusOK
		}
		responses := map[string]any{fmt.Sprint(status): map[string]any{"description": http.StatusText(status), "content": jsonContent(sc)}}
		// Group the documented error codes by status.
		byStatus := map[int][]string{}
		for _, code := range append([]apperr.Code{apperr.Internal}, r.Errors...) {
			byStatus[statusOf(code)] = append(byStatus[statusOf(code)], string(code))
		}
		for st, codes := range byStatus {
			sort.Strings(codes)
			responses[fmt.Sprint(st)] = map[string]any{
				"description": "Error codes: " + strings.Join(codes, ", "),
				"content":     jsonContent(map[string]any{"$ref": "#/components/schemas/ErrorBody"}),
			}
		}
		op["responses"] = responses
		if paths[r.Path] == nil {
			paths[r.Path] = map[string]any{}
		}
		paths[r.Path][strings.ToLower(r.Method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Adventure Table API",
			"version":     s.opts.Version,
			"description": "JSON API of the Adventure Table server. Errors carry a stable code in error.code.",
		},
		"paths":      paths,
		"components": map[string]any{"schemas": map[string]any{"ErrorBody": errSchema}},
	}
	return json.MarshalIndent(doc, "", "  ")
}

func jsonContent(schema any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

func schemaOf(t reflect.Type) (*jsonschema.Schema, error) {
	return jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: table.WireSchemas()})
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
