package imports_test

import (
	"context"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative/imports"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// FuzzParse: any bytes give a preview or a stable refusal, never a panic,
// and every preview passes the scenario's own validation (it is created
// on a real database).
func FuzzParse(f *testing.F) {
	for _, s := range []string{stWorldInfo, cardV1, cardV2, cardV3, aidScenario, aidStoryCards, novelAI} {
		f.Add([]byte(s))
	}
	f.Add(pngWithText(f, [2]string{"chara", b64(cardV2)}))
	f.Add(charx(f, [2]string{"assets/icon.png", "x"}, [2]string{"card.json", cardV3}))
	svc, user := newService(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := imports.Parse(data)
		if err != nil {
			switch apperr.CodeOf(err) {
			case apperr.ImportFormatUnsupported, apperr.ImportPNGWithoutCard, apperr.InvalidRequest:
				return
			}
			t.Fatalf("unexpected error %v", err)
		}
		if _, err := svc.CreateScenario(context.Background(), user, p.Scenario); err != nil {
			t.Fatalf("the preview does not create: %v\n%+v", err, p.Scenario)
		}
	})
}
