package webui_test

import (
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestVisitsAreCountedWithoutReading: a page of the app loaded is counted
// by its kind (never by its ids) and serving it runs no SQL statement at
// all; the identity an API call resumes marks its visitor's day as come,
// once however often they call.
func TestVisitsAreCountedWithoutReading(t *testing.T) {
	f := newFixture(t, withSecret)
	me := tabletest.NewUser(t, f.services.Table, "Visitor")
	for _, path := range []string{"/", "/sessions/12", "/sessions/13", "/solo/adventures/4", "/no-such-page"} {
		rec, n := countedWith(t, f.handler, me, "GET", path, map[string]string{"Accept": "text/html"})
		if n != 0 {
			t.Errorf("loading %s ran %d statements, want none (%d)", path, n, rec.Code)
		}
	}
	for range 3 {
		call(t, f.handler, me, "GET", "/api/me", "")
	}
	if err := f.services.Analytics.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := f.store.AnalyticsHitsSince(ctx, "2000-01-01")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[r.Metric+" "+r.Label] += r.Hits
	}
	want := map[string]int64{"visit home": 1, "visit session": 2, "visit solo": 1, "visit other": 1}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	funnel, err := f.store.AnalyticsFunnelSince(ctx, "2000-01-01")
	if err != nil {
		t.Fatal(err)
	}
	if len(funnel) != 1 || funnel[0].Visitors != 1 || funnel[0].Flags&int64(analytics.Came) == 0 {
		t.Errorf("funnel: %+v, want one visitor who came", funnel)
	}
}
