package table

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/appfile"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// CampaignFormat names the app's campaign file: a campaign's story so far
// as one JSON file with a Markdown rendering of it.
const CampaignFormat = "adventure-table.campaign"

// CampaignFormatVersion is the version of CampaignFormat this build writes.
const CampaignFormatVersion = 1

// exportEventPage is how many events one read of an export takes.
const exportEventPage = 500

// CampaignFile is a campaign as its exporter may read it: the world, each
// session's story (the lines of the events the exporter saw), the
// journal and the memories. Whoever exports it gets only what they may
// read at the table: a player's file holds no whisper to another player,
// no DM-only entry, no hidden NPC's numbers and no secret DC; the DM's
// holds everything. It never carries ids, tokens or account data.
type CampaignFile struct {
	Format     string                `json:"format" jsonschema:"always adventure-table.campaign"`
	Version    int                   `json:"version" jsonschema:"format version; 1"`
	ExportedAt time.Time             `json:"exported_at"`
	ExportedAs string                `json:"exported_as" jsonschema:"dm: the whole campaign; player or member: what that reader may see"`
	Campaign   CampaignFileCampaign  `json:"campaign"`
	Sessions   []CampaignFileSession `json:"sessions"`
	Journal    []CampaignFileEntry   `json:"journal"`
	Memories   []CampaignFileMemory  `json:"memories"`
	// Markdown is the story so far to read: the world, each session's
	// recap and lines, the journal.
	Markdown string `json:"markdown"`
}

// CampaignFileCampaign is the campaign itself.
type CampaignFileCampaign struct {
	Name       string `json:"name"`
	RecapStyle string `json:"recap_style"`
	World      World  `json:"world"`
}

// CampaignFileSession is one session's story.
type CampaignFileSession struct {
	Number    int        `json:"number"`
	Status    string     `json:"status"`
	StartedAt *time.Time `json:"started_at,omitempty"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	Recap     string     `json:"recap,omitempty"`
	Lines     []string   `json:"lines"`
}

// CampaignFileEntry is a journal entry; seats are named, not numbered.
type CampaignFileEntry struct {
	Kind      string   `json:"kind"`
	Title     string   `json:"title"`
	Text      string   `json:"text,omitempty"`
	Audience  string   `json:"audience" jsonschema:"table, seats or dm"`
	Seats     []string `json:"seats,omitempty" jsonschema:"with audience seats: who knows it"`
	Confirmed bool     `json:"confirmed"`
}

// CampaignFileMemory is a memory of the campaign.
type CampaignFileMemory struct {
	Session  int    `json:"session" jsonschema:"the session it remembers (1 for the first)"`
	Audience string `json:"audience" jsonschema:"table, seats or dm"`
	Text     string `json:"text"`
}

// ExportCampaign writes the campaign's file for the caller, a member of
// its room: everything for the DM, what they may read for anyone else
// (the feed's audience rule for events and memories, the journal's for
// entries, the world's for the world). Returns not_found,
// room_access_revoked.
func (s *Service) ExportCampaign(ctx context.Context, c Caller, campaignID int64) (CampaignFile, error) {
	js, err := loadJournal(ctx, s.store, c, campaignID)
	if err != nil {
		return CampaignFile{}, err
	}
	w, err := s.store.FindCampaignWorld(ctx, js.camp.ID)
	if err != nil {
		return CampaignFile{}, err
	}
	chars, err := charactersByID(ctx, s.store, seatCharacterIDs(js.seats))
	if err != nil {
		return CampaignFile{}, err
	}
	names := namesOfSeats(js.seats, chars)
	events := campaignViewer(js.actor, js.seats)
	out := CampaignFile{Format: CampaignFormat, Version: CampaignFormatVersion, ExportedAt: s.now().UTC().Truncate(time.Second),
		ExportedAs: exporterRole(events), Campaign: CampaignFileCampaign{Name: js.camp.Name, RecapStyle: js.camp.RecapStyle, World: worldFor(w, js.actor)},
		Sessions: []CampaignFileSession{}, Journal: []CampaignFileEntry{}, Memories: []CampaignFileMemory{}}

	sessions, err := s.store.FindSessionsOfCampaign(ctx, js.camp.ID)
	if err != nil {
		return CampaignFile{}, err
	}
	number := map[int64]int{}
	for i, se := range sessions {
		number[se.ID] = i + 1
		fs := CampaignFileSession{Number: i + 1, Status: se.Status, StartedAt: se.StartedAt, EndedAt: se.EndedAt, Lines: []string{}}
		if se.RecapStatus == models.RecapPosted {
			fs.Recap = se.RecapText
		}
		for after := int64(0); ; {
			page, err := s.store.FindEventsAfter(ctx, se.ID, after, exportEventPage)
			if err != nil {
				return CampaignFile{}, err
			}
			for _, e := range page {
				if !events.sees(e) {
					continue
				}
				if line := eventLine(e.Kind, e.ActingSeatID, e.SubjectSeatID, []byte(e.Payload), names); line != "" {
					fs.Lines = append(fs.Lines, line)
				}
			}
			if len(page) < exportEventPage {
				break
			}
			after = page[len(page)-1].Seq
		}
		out.Sessions = append(out.Sessions, fs)
	}

	journal, err := s.ListJournal(ctx, c, js.camp.ID, JournalFilter{Limit: MaxJournalLimit})
	for err == nil {
		for _, e := range journal.Entries {
			fe := CampaignFileEntry{Kind: e.Kind, Title: e.Title, Text: e.Text, Audience: e.Audience, Confirmed: e.Confirmed}
			for _, id := range e.SeatIDs {
				fe.Seats = append(fe.Seats, names.of(&id))
			}
			out.Journal = append(out.Journal, fe)
		}
		if !journal.HasMore || len(journal.Entries) == 0 {
			break
		}
		journal, err = s.ListJournal(ctx, c, js.camp.ID, JournalFilter{Limit: MaxJournalLimit, Before: journal.Entries[len(journal.Entries)-1].ID})
	}
	if err != nil {
		return CampaignFile{}, err
	}
	// oldest first, as the story reads
	for i, j := 0, len(out.Journal)-1; i < j; i, j = i+1, j-1 {
		out.Journal[i], out.Journal[j] = out.Journal[j], out.Journal[i]
	}

	mems, err := s.visibleMemories(ctx, js.camp.ID, events)
	if err != nil {
		return CampaignFile{}, err
	}
	for _, m := range mems {
		out.Memories = append(out.Memories, CampaignFileMemory{Session: number[m.SessionID], Audience: m.Audience, Text: m.Text})
	}
	out.Markdown = campaignMarkdown(out)
	return out, nil
}

// exporterRole names what the file holds: the DM's whole campaign, a
// player's view, or a member's who plays no seat.
func exporterRole(v viewer) string {
	switch {
	case v.dm:
		return "dm"
	case len(v.seats) > 0:
		return "player"
	}
	return "member"
}

// campaignMarkdown renders the file as the story so far.
func campaignMarkdown(f CampaignFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", f.Campaign.Name)
	if p := f.Campaign.World.Premise; p != "" {
		fmt.Fprintf(&b, "%s\n\n", p)
	}
	if p := f.Campaign.World.PlotEssentials; p != "" {
		fmt.Fprintf(&b, "**Plot essentials (DM).** %s\n\n", p)
	}
	for _, s := range f.Sessions {
		fmt.Fprintf(&b, "## Session %d", s.Number)
		if s.StartedAt != nil {
			fmt.Fprintf(&b, " — %s", s.StartedAt.UTC().Format("2 January 2006"))
		}
		b.WriteString("\n\n")
		if s.Recap != "" {
			fmt.Fprintf(&b, "> *Previously on…* %s\n\n", strings.ReplaceAll(s.Recap, "\n", "\n> "))
		}
		for _, l := range s.Lines {
			fmt.Fprintf(&b, "- %s\n", l)
		}
		if len(s.Lines) > 0 {
			b.WriteString("\n")
		}
	}
	if len(f.Journal) > 0 {
		b.WriteString("## Journal\n\n")
		for _, e := range f.Journal {
			fmt.Fprintf(&b, "- **%s** (%s", e.Title, e.Kind)
			switch e.Audience {
			case models.AudienceDM:
				b.WriteString(", DM only")
			case models.AudienceSeats:
				fmt.Fprintf(&b, ", known to %s", strings.Join(e.Seats, ", "))
			}
			if !e.Confirmed {
				b.WriteString(", proposed")
			}
			b.WriteString(")")
			if e.Text != "" {
				fmt.Fprintf(&b, ": %s", e.Text)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// MaxCampaignFileBytes bounds an imported campaign file.
const MaxCampaignFileBytes = 16 << 20

// The row caps of an imported campaign file: a campaign of a few hundred
// sessions fits; a file past them is refused whole.
const (
	CampaignFileSessionsMax = 500
	CampaignFileLinesMax    = 20_000 // per session
	CampaignFileMemoriesMax = 5_000
	CampaignFileMemoryMax   = 4_000 // characters of one memory
)

var campaignFileSpec = appfile.Spec{Format: CampaignFormat, Version: CampaignFormatVersion, MaxBytes: MaxCampaignFileBytes, Noun: "campaign file"}

// DecodeCampaignFile reads a campaign file strictly: one JSON object of at
// most MaxCampaignFileBytes, no duplicate keys, no unknown fields, no
// trailing data, CampaignFormat at CampaignFormatVersion, within the row
// caps. Returns invalid_request or import_format_unsupported.
func DecodeCampaignFile(data []byte) (CampaignFile, error) {
	var f CampaignFile
	if err := campaignFileSpec.Decode(data, &f); err != nil {
		return CampaignFile{}, err
	}
	tooMany := func(field string, n, max int) error {
		return apperr.E(apperr.InvalidRequest, "The file holds %d %s; a campaign file holds at most %d.", n, field, max).WithField(field, fmt.Sprintf("at most %d", max))
	}
	switch {
	case len(f.Sessions) > CampaignFileSessionsMax:
		return CampaignFile{}, tooMany("sessions", len(f.Sessions), CampaignFileSessionsMax)
	case len(f.Journal) > JournalEntriesMax:
		return CampaignFile{}, tooMany("journal", len(f.Journal), JournalEntriesMax)
	case len(f.Memories) > CampaignFileMemoriesMax:
		return CampaignFile{}, tooMany("memories", len(f.Memories), CampaignFileMemoriesMax)
	}
	for i, se := range f.Sessions {
		if len(se.Lines) > CampaignFileLinesMax {
			return CampaignFile{}, tooMany(fmt.Sprintf("sessions[%d].lines", i), len(se.Lines), CampaignFileLinesMax)
		}
	}
	return f, nil
}

// ImportCampaign creates a new campaign in the room from a campaign file,
// in one transaction: the campaign with its DM seat, its world and recap
// style, one ended session per session of the file (with its recap), the
// journal and the memories — so the new campaign's next session opens
// remembering the old one. Seats are not carried over: what the file says
// some players knew is the DM's in the new campaign. The story lines stay
// in the file (they hold no audience to keep them by). Only room authority
// may. Returns invalid_request, import_format_unsupported,
// campaign_name_invalid, campaign_world_invalid, journal_entry_invalid,
// room_authority_required, not_found. Nothing is written on any error.
func (s *Service) ImportCampaign(ctx context.Context, c Caller, roomID int64, data []byte) (RoomView, error) {
	f, err := DecodeCampaignFile(data)
	if err != nil {
		return RoomView{}, err
	}
	name, err := cleanName(f.Campaign.Name, apperr.CampaignNameInvalid, "campaign.name")
	if err != nil {
		return RoomView{}, err
	}
	world, err := cleanWorld(f.Campaign.World)
	if err != nil {
		return RoomView{}, err
	}
	style := f.Campaign.RecapStyle
	if style != models.RecapBrief && style != models.RecapDetailed {
		return RoomView{}, apperr.E(apperr.InvalidRequest, "recap_style must be brief or detailed.").WithField("campaign.recap_style", "brief or detailed")
	}
	entries := make([]models.JournalEntry, len(f.Journal))
	for i, e := range f.Journal {
		entries[i] = models.JournalEntry{Kind: e.Kind, Title: e.Title, Text: e.Text, Audience: privateToDM(e.Audience), SeatIDs: []int64{}, Confirmed: e.Confirmed}
		if err := cleanJournalEntry(&entries[i]); err != nil {
			if ae, ok := apperr.As(err); ok {
				return RoomView{}, ae.WithDetail("journal_index", i)
			}
			return RoomView{}, err
		}
	}
	for i, m := range f.Memories {
		text := strings.TrimSpace(m.Text)
		switch {
		case m.Session < 1 || m.Session > len(f.Sessions):
			return RoomView{}, apperr.E(apperr.InvalidRequest, "Memory %d names session %d; the file has %d.", i, m.Session, len(f.Sessions)).WithField(fmt.Sprintf("memories[%d].session", i), "a session of the file")
		case text == "" || utf8.RuneCountInString(text) > CampaignFileMemoryMax || !models.StorableText(text):
			return RoomView{}, apperr.E(apperr.InvalidRequest, "Memory %d must be 1 to %d characters of text.", i, CampaignFileMemoryMax).WithField(fmt.Sprintf("memories[%d].text", i), fmt.Sprintf("1 to %d characters", CampaignFileMemoryMax))
		case m.Audience != models.AudienceTable && m.Audience != models.AudienceSeats && m.Audience != models.AudienceDM:
			return RoomView{}, apperr.E(apperr.InvalidRequest, "Memory %d's audience must be table, seats or dm.", i).WithField(fmt.Sprintf("memories[%d].audience", i), "table, seats or dm")
		}
	}
	for i, se := range f.Sessions {
		if !models.StorableText(se.Recap) || utf8.RuneCountInString(se.Recap) > maxRecapRunes {
			return RoomView{}, apperr.E(apperr.InvalidRequest, "Session %d's recap must be at most %d characters of text.", i+1, maxRecapRunes).WithField(fmt.Sprintf("sessions[%d].recap", i), fmt.Sprintf("at most %d characters", maxRecapRunes))
		}
	}

	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		a, err := roomActor(ctx, tx, c, roomID, "room")
		if err != nil {
			return Actor{}, err
		}
		if err := requireRoomAuthority(a); err != nil {
			return Actor{}, err
		}
		camp, dm, err := s.createCampaign(ctx, tx, roomID, name)
		if err != nil {
			return Actor{}, err
		}
		if err := tx.UpdateCampaign(ctx, camp.ID, models.CampaignUpdate{RecapStyle: &style}); err != nil {
			return Actor{}, err
		}
		npcs, _ := json.Marshal(world.NPCs)
		now := s.now()
		if err := tx.SaveCampaignWorld(ctx, &models.CampaignWorld{CampaignID: camp.ID, Premise: world.Premise, PlotEssentials: world.PlotEssentials, NPCs: string(npcs), UpdatedAt: now}); err != nil {
			return Actor{}, err
		}
		sessionIDs := make([]int64, len(f.Sessions))
		for i, fs := range f.Sessions {
			se := &models.Session{RoomID: roomID, CampaignID: camp.ID, DMSeatID: dm.ID, Status: models.SessionEnded, DMControllerKind: models.ControllerNone,
				CreatedAt: now, StartedAt: fs.StartedAt, EndedAt: fs.EndedAt, RecapStatus: models.RecapNone}
			if fs.StartedAt != nil {
				se.CreatedAt = *fs.StartedAt
			}
			if se.EndedAt == nil {
				se.EndedAt = &now
			}
			if recap := strings.TrimSpace(fs.Recap); recap != "" {
				se.RecapStatus, se.RecapText = models.RecapPosted, recap
			}
			if err := tx.CreateSession(ctx, se); err != nil {
				return Actor{}, err
			}
			sessionIDs[i] = se.ID
		}
		if err := s.failpoint("campaign.import"); err != nil {
			return Actor{}, err
		}
		stamp := s.journalNow()
		for i := range entries {
			entries[i].CampaignID, entries[i].CreatedAt, entries[i].UpdatedAt = camp.ID, stamp, stamp
			if err := tx.CreateJournalEntry(ctx, &entries[i]); err != nil {
				return Actor{}, err
			}
		}
		for i, m := range f.Memories {
			audience := privateToDM(m.Audience)
			if err := tx.CreateCampaignMemory(ctx, &models.CampaignMemory{CampaignID: camp.ID, SessionID: sessionIDs[m.Session-1], Audience: audience,
				SeatIDs: []int64{}, AudienceKey: audience, Kind: models.CampaignMemoryNote, FromSeq: int64(i + 1), ToSeq: int64(i + 1),
				Text: strings.TrimSpace(m.Text), CreatedAt: now, UpdatedAt: now}); err != nil {
				return Actor{}, err
			}
		}
		return a, nil
	})
}

// privateToDM is an imported audience in a campaign without the file's
// seats: what some players knew becomes the DM's.
func privateToDM(audience string) string {
	if audience == models.AudienceSeats {
		return models.AudienceDM
	}
	return audience
}

// CampaignFileName is the name a campaign's file is saved under.
func CampaignFileName(name string) string {
	return appfile.FileName(name, "campaign", ".campaign.json")
}
