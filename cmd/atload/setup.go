package main

import (
	"context"
	"fmt"
	"net/url"
)

// table is one room with an active session, set up through the API the
// way the web app does it: the owner is the human DM, each human identity
// plays one seat, and each AI seat has a grant minted by the operator.
type table struct {
	roomID, campaignID, sessionID int64
	dmSeat                        int64
	humanSeats                    []int64  // by identity
	aiSeats                       []int64  // by grant
	grants                        []string // bearer tokens, by AI seat
	cursor                        int64    // the session's cursor after setup
}

type roomView struct {
	ID         int64  `json:"id"`
	InviteCode string `json:"invite_code"`
	MyAccess   struct {
		ID int64 `json:"id"`
	} `json:"my_access"`
	Campaigns []struct {
		ID    int64 `json:"id"`
		Seats []struct {
			ID    int64  `json:"id"`
			Label string `json:"label"`
		} `json:"seats"`
	} `json:"campaigns"`
}

// seatByLabel finds a seat of the room's campaign by its label.
func (r roomView) seatByLabel(campaignID int64, label string) (int64, error) {
	for _, c := range r.Campaigns {
		if c.ID != campaignID {
			continue
		}
		for _, s := range c.Seats {
			if s.Label == label {
				return s.ID, nil
			}
		}
	}
	return 0, fmt.Errorf("no seat %q in campaign %d", label, campaignID)
}

// character is a minimal valid character sheet.
func character(name string) map[string]any {
	return map[string]any{
		"name": name, "level": 3,
		"abilities":           map[string]int{"str": 10, "dex": 14, "con": 12, "int": 10, "wis": 14, "cha": 8},
		"skill_proficiencies": []string{}, "skill_expertise": []string{},
		"hp":         map[string]int{"max": 20, "current": 20, "temp": 0},
		"conditions": []string{}, "resources": []string{}, "biography": "", "roleplay_guidance": "",
	}
}

type idView struct {
	ID int64 `json:"id"`
}

// seatCharacter creates a character for who and seats it.
func seatCharacter(ctx context.Context, who *api, seat int64, name string) error {
	var ch idView
	if err := who.do(ctx, "POST", "/api/characters", character(name), &ch); err != nil {
		return err
	}
	return who.do(ctx, "PUT", fmt.Sprintf("/api/seats/%d/character", seat), map[string]int64{"character_id": ch.ID}, nil)
}

// setupTable creates a room owned by owner (the DM), one seat per human
// identity and aiSeats seats for AI players, starts a session and mints a
// grant per AI seat.
func setupTable(ctx context.Context, srv *server, owner *api, humans []*api, aiSeats int, name string) (*table, error) {
	var room roomView
	if err := owner.do(ctx, "POST", "/api/rooms", map[string]string{"name": name}, &room); err != nil {
		return nil, err
	}
	t := &table{roomID: room.ID}
	ownerAccess := room.MyAccess.ID
	if err := owner.do(ctx, "POST", fmt.Sprintf("/api/rooms/%d/campaigns", t.roomID), map[string]string{"name": name}, &room); err != nil {
		return nil, err
	}
	if len(room.Campaigns) == 0 || len(room.Campaigns[0].Seats) == 0 {
		return nil, fmt.Errorf("room %d: the new campaign has no DM seat", t.roomID)
	}
	t.campaignID, t.dmSeat = room.Campaigns[0].ID, room.Campaigns[0].Seats[0].ID
	if err := owner.do(ctx, "POST", fmt.Sprintf("/api/seats/%d/assign", t.dmSeat), map[string]int64{"access_id": ownerAccess}, nil); err != nil {
		return nil, err
	}
	addSeat := func(label string, access int64) (int64, error) {
		if err := owner.do(ctx, "POST", fmt.Sprintf("/api/campaigns/%d/seats", t.campaignID), map[string]string{"label": label}, &room); err != nil {
			return 0, err
		}
		seat, err := room.seatByLabel(t.campaignID, label)
		if err != nil {
			return 0, err
		}
		return seat, owner.do(ctx, "POST", fmt.Sprintf("/api/seats/%d/assign", seat), map[string]int64{"access_id": access}, nil)
	}
	for i, h := range humans {
		var joined roomView
		if err := h.do(ctx, "POST", "/api/rooms/join", map[string]string{"invite_code": room.InviteCode}, &joined); err != nil {
			return nil, err
		}
		seat, err := addSeat(fmt.Sprintf("H%d", i+1), joined.MyAccess.ID)
		if err != nil {
			return nil, err
		}
		if err := seatCharacter(ctx, h, seat, fmt.Sprintf("Human %d", i+1)); err != nil {
			return nil, err
		}
		t.humanSeats = append(t.humanSeats, seat)
	}
	// An AI player seat is handed over during the session: the owner
	// plays it until then, so it joins at the start.
	for i := range aiSeats {
		seat, err := addSeat(fmt.Sprintf("AI%d", i+1), ownerAccess)
		if err != nil {
			return nil, err
		}
		if err := seatCharacter(ctx, owner, seat, fmt.Sprintf("Agent %d", i+1)); err != nil {
			return nil, err
		}
		t.aiSeats = append(t.aiSeats, seat)
	}
	var sess struct {
		Session idView `json:"session"`
	}
	if err := owner.do(ctx, "POST", fmt.Sprintf("/api/campaigns/%d/sessions", t.campaignID), nil, &sess); err != nil {
		return nil, err
	}
	t.sessionID = sess.Session.ID
	if err := owner.do(ctx, "POST", fmt.Sprintf("/api/sessions/%d/start", t.sessionID), nil, nil); err != nil {
		return nil, err
	}
	for _, seat := range t.aiSeats {
		tok, err := srv.grant(ctx, seat)
		if err != nil {
			return nil, err
		}
		t.grants = append(t.grants, tok)
	}
	// The cursor to wait from: everything so far (start, controller
	// changes) is history.
	for {
		var page struct {
			Cursor  int64 `json:"cursor"`
			HasMore bool  `json:"has_more"`
		}
		q := url.Values{"after": {fmt.Sprint(t.cursor)}, "limit": {"200"}}
		if err := owner.do(ctx, "GET", fmt.Sprintf("/api/sessions/%d/events?%s", t.sessionID, q.Encode()), nil, &page); err != nil {
			return nil, err
		}
		t.cursor = page.Cursor
		if !page.HasMore {
			return t, nil
		}
	}
}
