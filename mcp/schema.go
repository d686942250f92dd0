package mcp

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/gameplay/table"
)

// sharedDefs are the compact types that appear in more than one place of a
// result: each is written once under $defs and referred to elsewhere, so a
// tool's output schema says it once.
var sharedDefs = map[reflect.Type]string{
	reflect.TypeFor[Event](): "event",
	reflect.TypeFor[Roll]():  "roll",
	reflect.TypeFor[Check](): "check",
	reflect.TypeFor[Fight](): "fight",
}

// errorSchema is {"error": …} of a failed call: a code to branch on and a
// message to read (fields and details may follow).
func errorSchema() *jsonschema.Schema {
	str := &jsonschema.Schema{Type: "string"}
	return &jsonschema.Schema{Type: "object", Required: []string{"code", "message"},
		Properties: map[string]*jsonschema.Schema{"code": str, "message": str}}
}

// enums are the closed sets of the tools' arguments, by property name:
// a client can check them and a model does not have to guess from prose.
var enums = func() map[string][]any {
	skills := slices.Sorted(maps.Keys(sheet.Skills))
	out := map[string][]any{
		"mode":      {"normal", "advantage", "disadvantage"},
		"op":        {table.OpDamage, table.OpHeal, table.OpSetTempHP, table.OpAddCondition, table.OpRemoveCondition, table.OpSpendResource, table.OpRestoreResource},
		"ability":   {},
		"intent":    {"search"},
		"status":    {"processing", "waiting_for_roll", "resolved", "cancelled"},
		"skill":     {},
		"condition": {},
		"change":    {table.OpDamage, table.OpHeal, table.OpSetTempHP, table.OpAddCondition, table.OpRemoveCondition, table.OpReveal, table.OpHide, table.OpRemove},
	}
	for _, a := range sheet.Abilities {
		out["ability"] = append(out["ability"], a)
	}
	for _, s := range skills {
		out["skill"] = append(out["skill"], s)
	}
	for _, c := range table.Conditions {
		out["condition"] = append(out["condition"], c)
	}
	return out
}()

// inputSchema is the schema of a tool's arguments: the Go type, with the
// closed sets as enums (a type's own enums() first, then the shared ones).
func inputSchema(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: table.WireSchemas()})
	if err != nil {
		return nil, err
	}
	own := map[string][]any{}
	if o, ok := reflect.New(t).Interface().(interface{ enums() map[string][]any }); ok {
		own = o.enums()
	}
	for name, p := range s.Properties {
		e, ok := own[name]
		if !ok {
			e, ok = enums[name]
		}
		if ok && p.Type == "string" {
			p.Enum = e
		}
	}
	tidy(s)
	return s, nil
}

// outputSchema is the schema of everything a tool can return: its result
// type, or {"error": …} when it fails (clients validate error results too).
// Shared types live once in $defs; optional fields are simply absent, never
// null.
func outputSchema(t reflect.Type) (*jsonschema.Schema, error) {
	refs := func(except reflect.Type) map[reflect.Type]*jsonschema.Schema {
		ts := table.WireSchemas()
		for typ, name := range sharedDefs {
			if typ != except {
				ts[typ] = &jsonschema.Schema{Ref: "#/$defs/" + name}
			}
		}
		return ts
	}
	root, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: refs(t)})
	if err != nil {
		return nil, err
	}
	if root.Type != "object" {
		return nil, fmt.Errorf("%s: a tool result must be an object", t)
	}
	if root.Properties == nil {
		root.Properties = map[string]*jsonschema.Schema{}
	}
	root.Properties["error"] = errorSchema()
	if len(root.Required) > 0 {
		root.AnyOf = []*jsonschema.Schema{{Required: root.Required}, {Required: []string{"error"}}}
		root.Required = nil
	}
	// Add the definitions the schema uses, and those they use in turn.
	root.Defs = map[string]*jsonschema.Schema{}
	for {
		added := false
		for _, name := range usedRefs(root) {
			if root.Defs[name] != nil {
				continue
			}
			typ := defType(name)
			d, err := jsonschema.ForType(typ, &jsonschema.ForOptions{TypeSchemas: refs(typ)})
			if err != nil {
				return nil, err
			}
			root.Defs[name] = d
			added = true
		}
		if !added {
			break
		}
	}
	if len(root.Defs) == 0 {
		root.Defs = nil
	}
	tidy(root)
	// An output schema is for checking, not for reading: a model reads the
	// result itself. Descriptions, the ban on extra fields and an explicit
	// "any field" (the default) would only cost bytes in every client's
	// tool list.
	walk(root, func(x *jsonschema.Schema) {
		x.Description = ""
		if a := x.AdditionalProperties; a != nil && (a.Not != nil || reflect.ValueOf(*a).IsZero()) {
			x.AdditionalProperties = nil
		}
	})
	return root, nil
}

func defType(name string) reflect.Type {
	for t, n := range sharedDefs {
		if n == name {
			return t
		}
	}
	panic("unknown $def " + name)
}

// usedRefs lists the $defs names a schema refers to, sorted.
func usedRefs(s *jsonschema.Schema) []string {
	seen := map[string]bool{}
	walk(s, func(x *jsonschema.Schema) {
		if len(x.Ref) > len("#/$defs/") {
			seen[x.Ref[len("#/$defs/"):]] = true
		}
	})
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// tidy makes a generated schema say what the JSON really holds: a field
// that may be absent (omitempty) is absent rather than null, so its type
// loses "null"; a $ref stands alone.
func tidy(s *jsonschema.Schema) {
	walk(s, func(x *jsonschema.Schema) {
		for name, p := range x.Properties {
			if slices.Contains(x.Required, name) {
				continue
			}
			if i := slices.Index(p.Types, "null"); i >= 0 {
				p.Types = slices.Delete(slices.Clone(p.Types), i, i+1)
				if len(p.Types) == 1 {
					p.Type, p.Types = p.Types[0], nil
				}
			}
		}
		if x.Ref != "" {
			x.Type, x.Types = "", nil
		}
	})
}

// walk visits s and every schema inside it.
func walk(s *jsonschema.Schema, visit func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	visit(s)
	for _, p := range s.Properties {
		walk(p, visit)
	}
	for _, d := range s.Defs {
		walk(d, visit)
	}
	for _, a := range s.AnyOf {
		walk(a, visit)
	}
	walk(s.Items, visit)
	walk(s.AdditionalProperties, visit)
}
