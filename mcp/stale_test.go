package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestStaleTokensOnEveryTool makes tokens stale in every way a table can
// and calls every tool with each: all are refused with the token's code
// before any tool runs. (A token cannot name a wrong session through the
// tools: they take the session from the grant itself.)
func TestStaleTokensOnEveryTool(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	clock := &now
	svc := table.New(modelstest.MustOpen(t), func() time.Time { return *clock })
	srv := httptest.NewServer(NewHandler(Options{Version: "test", Table: svc, Verify: func(ctx context.Context, tok string) (Principal, error) {
		c, err := svc.AuthenticateGrant(ctx, tok)
		return Principal{GrantID: c.GrantID}, err
	}}))
	t.Cleanup(srv.Close)

	handedOff := func(t *testing.T) (tabletest.Fixture, string) {
		f := tabletest.New(t, svc)
		_, err := svc.StartSession(ctx, f.Owner, f.LobbyID)
		tabletest.Must(t, err)
		m, err := svc.LetAIControl(ctx, f.Seated, f.PlayerSeatID, table.HandoffInput{})
		tabletest.Must(t, err)
		return f, m.Token
	}
	preSession := func(t *testing.T) (tabletest.Fixture, string) {
		f := tabletest.New(t, svc)
		m, err := svc.SetDMSeatAI(ctx, f.Owner, f.CampaignID)
		tabletest.Must(t, err)
		return f, m.Token
	}
	cases := []struct {
		name  string
		stale func(t *testing.T) string
		want  string
	}{
		{"TakenBack", func(t *testing.T) string {
			f, tok := handedOff(t)
			_, err := svc.TakeBackControl(ctx, f.Seated, f.PlayerSeatID)
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"ReassignedByOwner", func(t *testing.T) string {
			f, tok := handedOff(t)
			_, err := svc.AssignSeat(ctx, f.Owner, f.PlayerSeatID, f.UnseatedAccess)
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"SessionEnded", func(t *testing.T) string {
			f, tok := handedOff(t)
			_, err := svc.EndSession(ctx, f.Owner, f.LobbyID)
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"DMRotated", func(t *testing.T) string {
			f, tok := preSession(t)
			_, err := svc.SetDMSeatAI(ctx, f.Owner, f.CampaignID)
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"CampaignArchived", func(t *testing.T) string {
			f, tok := preSession(t)
			archived := "archived"
			_, err := svc.UpdateCampaign(ctx, f.Owner, f.CampaignID, table.CampaignChange{Status: &archived})
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"ActiveCampaignSwitched", func(t *testing.T) string {
			f, tok := preSession(t)
			_, err := svc.UpdateRoom(ctx, f.Owner, f.RoomID, table.RoomChange{ActiveCampaignID: &f.SpareCampaignID})
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"PreSessionExpired", func(t *testing.T) string {
			_, tok := preSession(t)
			later := now.Add(table.PreSessionGrantTTL + time.Second)
			clock = &later
			t.Cleanup(func() { clock = &now })
			return tok
		}, "ai_token_expired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok := tc.stale(t)
			for _, tl := range tools {
				resp := rawToolCall(t, srv.URL, tok, tl.name)
				code := errorCode(t, resp)
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized || code != tc.want {
					t.Errorf("%s: got %d %q, want 401 %q", tl.name, resp.StatusCode, code, tc.want)
				}
			}
		})
	}
}
