package modelstest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TextRefusal is a call that must refuse text PostgreSQL cannot store,
// with its field's code and fields[Field].
type TextRefusal struct {
	Name, Field string
	Code        apperr.Code
	Call        func(text string) error
}

// CheckRefusesUnstorableText calls each refusal with a NUL and with invalid
// UTF-8, and expects each to fail with its code and field; what snapshot
// reads must be the same afterwards (nothing was stored).
func CheckRefusesUnstorableText(t *testing.T, refusals []TextRefusal, snapshot func() string) {
	t.Helper()
	before := snapshot()
	for _, bad := range []struct{ name, value string }{{"NUL", "a\x00b"}, {"InvalidUTF8", "a\xffb"}} {
		for _, r := range refusals {
			t.Run(bad.name+"/"+r.Name, func(t *testing.T) {
				err := r.Call(bad.value)
				e, ok := apperr.As(err)
				if !ok || e.Code != r.Code || e.Fields[r.Field] != models.UnstorableTextProblem {
					var fields map[string]string
					if ok {
						fields = e.Fields
					}
					t.Fatalf("got %v (fields %v), want %s with fields[%s]", err, fields, r.Code, r.Field)
				}
			})
		}
	}
	if diff := cmp.Diff(before, snapshot()); diff != "" {
		t.Fatalf("refused input changed something (-before +after):\n%s", diff)
	}
}
