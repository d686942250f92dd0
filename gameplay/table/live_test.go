package table_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// liveTable is a started session: the owner is the DM, Seated plays Mira
// (player A), Unseated plays Tomas (player B, joined late), the DM-key
// holder watches as a spectator.
type liveTable struct {
	tabletest.Fixture
	svc *table.Service
}

func newLiveTable(t *testing.T) (liveTable, *models.Store) {
	t.Helper()
	svc, store := newService(t)
	return liveTableOn(t, svc), store
}

// liveTableOn starts the live table's session on svc.
func liveTableOn(t *testing.T, svc *table.Service) liveTable {
	t.Helper()
	f := tabletest.New(t, svc)
	_, err := svc.StartSession(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	_, err = svc.AssignSeat(ctx, f.Owner, f.FreeSeatID, f.UnseatedAccess)
	tabletest.Must(t, err)
	_, err = svc.SetSeatCharacter(ctx, f.Unseated, f.FreeSeatID, &f.UnseatedCharacterID)
	tabletest.Must(t, err)
	_, err = svc.LateJoin(ctx, f.Owner, f.LobbyID, f.FreeSeatID)
	tabletest.Must(t, err)
	return liveTable{Fixture: f, svc: svc}
}

func (lt liveTable) post(t *testing.T, c table.Caller, in table.MessageInput) table.PostedMessage {
	t.Helper()
	p, err := lt.svc.PostMessage(ctx, c, lt.LobbyID, in)
	tabletest.Must(t, err)
	return p
}

// TestVisibilityMatrix posts every kind of message and event and checks,
// for every role, that the list path and the wait path agree with the
// expected audience — whispers reach only their two ends.
func TestVisibilityMatrix(t *testing.T) {
	lt, _ := newLiveTable(t)
	svc := lt.svc
	roles := []struct {
		name   string
		caller table.Caller
	}{{"dm", lt.Owner}, {"player_a", lt.Seated}, {"player_b", lt.Unseated}, {"spectator", lt.DMKey}}
	type produced struct {
		name string
		seq  int64
		seen map[string]bool
	}
	all := map[string]bool{"dm": true, "player_a": true, "player_b": true, "spectator": true}
	var cases []produced
	add := func(name string, seq int64, seen map[string]bool) { cases = append(cases, produced{name, seq, seen}) }
	b := lt.FreeSeatID
	add("a_dialogue", lt.post(t, lt.Seated, table.MessageInput{Kind: "character_dialogue", Text: "Hello there"}).Event.Seq, all)
	add("a_search", lt.post(t, lt.Seated, table.MessageInput{Kind: "action", Intent: "search", Text: "the door"}).Event.Seq, all)
	add("a_ooc", lt.post(t, lt.Seated, table.MessageInput{Kind: "ooc", Text: "brb"}).Event.Seq, all)
	add("a_whisper_dm", lt.post(t, lt.Seated, table.MessageInput{Kind: "whisper_dm", Text: "I pocket the gem"}).Event.Seq,
		map[string]bool{"dm": true, "player_a": true})
	add("dm_narration", lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: "The cave is dark."}).Event.Seq, all)
	add("dm_whisper_b", lt.post(t, lt.Owner, table.MessageInput{Kind: "whisper_dm", Text: "You hear a voice", ToSeatID: &b}).Event.Seq,
		map[string]bool{"dm": true, "player_b": true})
	add("dm_proxy_b", lt.post(t, lt.Owner, table.MessageInput{Kind: "action", Text: "Tomas ducks", SubjectSeatID: &b}).Event.Seq, all)
	// Rolls from the chat: /r and /roll for everyone, /gmroll for the
	// roller (and the seat rolled for) and the DM; inline rolls ride on
	// their message's audience.
	roll := func(c table.Caller, line string, subject *int64) int64 {
		p, err := svc.PostInput(ctx, c, lt.LobbyID, table.InputLine{Text: line, SubjectSeatID: subject})
		tabletest.Must(t, err)
		return p.Event.Seq
	}
	add("a_roll", roll(lt.Seated, "/r 1d20+5", nil), all)
	add("a_roll_skill", roll(lt.Seated, "/roll perception", nil), all)
	add("a_gmroll", roll(lt.Seated, "/gmroll 1d20", nil), map[string]bool{"dm": true, "player_a": true})
	add("a_gmroll_skill", roll(lt.Seated, "/gmroll stealth", nil), map[string]bool{"dm": true, "player_a": true})
	add("dm_gmroll", roll(lt.Owner, "/gmroll 1d100", nil), map[string]bool{"dm": true})
	add("dm_gmroll_for_b", roll(lt.Owner, "/gmroll perception", &b), map[string]bool{"dm": true, "player_b": true})
	add("a_inline", lt.post(t, lt.Seated, table.MessageInput{Kind: "action", Text: "I strike [[1d20+2]]"}).Event.Seq, all)
	add("a_whisper_inline", lt.post(t, lt.Seated, table.MessageInput{Kind: "whisper_dm", Text: "sneak [[1d20]]"}).Event.Seq,
		map[string]bool{"dm": true, "player_a": true})
	st, err := svc.SetStage(ctx, lt.Owner, lt.LobbyID, table.StageInput{Text: "A cave", Revision: 0})
	tabletest.Must(t, err)
	r, _ := svc.Resume(ctx, lt.Owner, lt.LobbyID)
	add("stage_updated", r.Cursor, all)
	_ = st

	for _, c := range cases {
		// A public marker after each event lets the wait path return at
		// once even for a reader who may not see the event itself.
		marker := lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: "marker " + c.name}).Event.Seq
		for _, role := range roles {
			t.Run(c.name+"/"+role.name, func(t *testing.T) {
				list, err := svc.ListEvents(ctx, role.caller, lt.LobbyID, c.seq-1, 1)
				tabletest.Must(t, err)
				gotList := len(list.Events) == 1 && list.Events[0].Seq == c.seq
				if gotList != c.seen[role.name] {
					t.Fatalf("list: seen=%v, want %v", gotList, c.seen[role.name])
				}
				if list.Cursor != c.seq {
					t.Fatalf("list cursor %d, want %d (the cursor passes hidden events too)", list.Cursor, c.seq)
				}
				wait, err := svc.WaitEvents(ctx, role.caller, lt.LobbyID, c.seq-1, 2*time.Second)
				tabletest.Must(t, err)
				gotWait := false
				for _, e := range wait.Events {
					if e.Seq == c.seq {
						gotWait = true
					}
				}
				if gotWait != c.seen[role.name] || len(wait.Events) == 0 {
					t.Fatalf("wait: seen=%v (events %d), want %v", gotWait, len(wait.Events), c.seen[role.name])
				}
				_ = marker
			})
		}
	}

	// Resume's recent events follow the same projection.
	for _, role := range roles {
		r, err := svc.Resume(ctx, role.caller, lt.LobbyID)
		tabletest.Must(t, err)
		for _, e := range r.RecentEvents {
			for _, c := range cases {
				if e.Seq == c.seq && !c.seen[role.name] {
					t.Fatalf("%s sees %s in resume", role.name, c.name)
				}
			}
		}
	}
	// The campaign's memories of these events (made when the session ends)
	// keep each event's audience: a line is remembered for exactly the
	// roles that saw it, and recalled for no one else.
	remembered := map[string]string{"a_dialogue": "Hello there", "a_search": "the door", "a_whisper_dm": "I pocket the gem",
		"dm_narration": "The cave is dark.", "dm_whisper_b": "You hear a voice", "dm_proxy_b": "Tomas ducks", "a_whisper_inline": "sneak"}
	_, err = svc.EndSession(ctx, lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	if _, err := svc.DrainCampaignMemoryJobs(ctx); err != nil {
		t.Fatal(err)
	}
	for _, role := range roles {
		list, err := svc.CampaignMemories(ctx, role.caller, lt.CampaignID)
		tabletest.Must(t, err)
		var all strings.Builder
		for _, m := range list.Memories {
			all.WriteString(m.Text + "\n")
		}
		for _, c := range cases {
			text, ok := remembered[c.name]
			if !ok {
				continue
			}
			recalled, err := svc.RecallMemories(ctx, role.caller, lt.LobbyID, text, table.MaxRecall)
			tabletest.Must(t, err)
			var got strings.Builder
			for _, m := range recalled {
				got.WriteString(m.Text + "\n")
			}
			if strings.Contains(all.String(), text) != c.seen[role.name] || strings.Contains(got.String(), text) && !c.seen[role.name] {
				t.Errorf("memory of %s for %s: listed %v, recalled %v, want %v", c.name, role.name,
					strings.Contains(all.String(), text), strings.Contains(got.String(), text), c.seen[role.name])
			}
		}
	}

	// A revoked access session and a stranger read nothing at all.
	_, err = svc.RevokeMember(ctx, lt.Owner, lt.RoomID, lt.UnseatedAccess)
	tabletest.Must(t, err)
	_, err = svc.ListEvents(ctx, lt.Unseated, lt.LobbyID, 0, 100)
	wantCode(t, err, apperr.RoomAccessRevoked)
	_, err = svc.WaitEvents(ctx, lt.Unseated, lt.LobbyID, 0, time.Second)
	wantCode(t, err, apperr.RoomAccessRevoked)
	_, err = svc.ListEvents(ctx, lt.Stranger, lt.LobbyID, 0, 100)
	wantCode(t, err, apperr.NotFound)
}

func TestPostingRules(t *testing.T) {
	lt, store := newLiveTable(t)
	b := lt.FreeSeatID
	dmSeat := lt.DMSeatID
	tests := []struct {
		name   string
		caller table.Caller
		in     table.MessageInput
		want   apperr.Code
	}{
		{"ErrSpectatorSpeaks", lt.DMKey, table.MessageInput{Kind: "character_dialogue", Text: "hi"}, apperr.MessageKindNotAllowed},
		{"ErrKeyHolderNarrates", lt.DMKey, table.MessageInput{Kind: "narration", Text: "hi"}, apperr.MessageKindNotAllowed},
		{"ErrPlayerNarrates", lt.Seated, table.MessageInput{Kind: "narration", Text: "hi"}, apperr.MessageKindNotAllowed},
		{"ErrPlayerProxies", lt.Seated, table.MessageInput{Kind: "action", Text: "hi", SubjectSeatID: &b}, apperr.MessageKindNotAllowed},
		{"ErrDMWhisperWithoutTarget", lt.Owner, table.MessageInput{Kind: "whisper_dm", Text: "psst"}, apperr.WhisperTargetRequired},
		{"ErrDMProxiesNonParticipant", lt.Owner, table.MessageInput{Kind: "action", Text: "hi", SubjectSeatID: &dmSeat}, apperr.ProxyTargetInvalid},
		{"ErrDMSpeaksAsNobody", lt.Owner, table.MessageInput{Kind: "character_dialogue", Text: "hi"}, apperr.MessageKindNotAllowed},
		{"ErrEmptyText", lt.Seated, table.MessageInput{Kind: "ooc", Text: "   "}, apperr.MessageTextInvalid},
		{"ErrLongText", lt.Seated, table.MessageInput{Kind: "ooc", Text: strings.Repeat("x", 4001)}, apperr.MessageTextInvalid},
		{"ErrIntentOnDialogue", lt.Seated, table.MessageInput{Kind: "character_dialogue", Text: "x", Intent: "search"}, apperr.InvalidRequest},
		{"ErrUnknownCheck", lt.Seated, table.MessageInput{Kind: "action", Text: "x", Intent: "check", Check: "luck"}, apperr.InvalidRequest},
		{"ErrStranger", lt.Stranger, table.MessageInput{Kind: "ooc", Text: "x"}, apperr.NotFound},
		{"ErrRevoked", lt.Revoked, table.MessageInput{Kind: "ooc", Text: "x"}, apperr.RoomAccessRevoked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lt.svc.PostMessage(ctx, tt.caller, lt.LobbyID, tt.in)
			wantCode(t, err, tt.want)
		})
	}
	if n, _ := store.CountMessages(ctx, lt.LobbyID); n != 0 {
		t.Fatalf("refused posts wrote %d messages", n)
	}
	// DM proxy keeps both identities and leaves the seat's controller alone.
	before := seatEpoch(t, lt.svc, lt.Owner, lt.RoomID, b)
	p := lt.post(t, lt.Owner, table.MessageInput{Kind: "action", Text: "Tomas ducks", SubjectSeatID: &b})
	e := p.Event
	if e.ExecutionMode != "dm_proxy" || *e.ActingSeatID != lt.DMSeatID || *e.SubjectSeatID != b || *e.SubjectCharacterID != lt.UnseatedCharacterID {
		t.Fatalf("proxy event %+v lacks the acting DM or the subject", e)
	}
	if seatEpoch(t, lt.svc, lt.Owner, lt.RoomID, b) != before {
		t.Fatal("DM proxy changed the seat's controller epoch")
	}
	// Idempotency: the same key returns the first message, written once.
	first := lt.post(t, lt.Seated, table.MessageInput{Kind: "ooc", Text: "once", IdempotencyKey: "k-1"})
	again := lt.post(t, lt.Seated, table.MessageInput{Kind: "ooc", Text: "once", IdempotencyKey: "k-1"})
	if first.MessageID != again.MessageID || first.Event.Seq != again.Event.Seq {
		t.Fatalf("retry produced %+v after %+v", again, first)
	}
	if n, _ := store.CountMessages(ctx, lt.LobbyID); n != 2 {
		t.Fatalf("got %d messages, want 2", n)
	}
	// After the end nobody writes.
	_, err := lt.svc.EndSession(ctx, lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	_, err = lt.svc.PostMessage(ctx, lt.Seated, lt.LobbyID, table.MessageInput{Kind: "ooc", Text: "late"})
	wantCode(t, err, apperr.SessionNotActive)
	page, err := lt.svc.ListEvents(ctx, lt.Seated, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	if last := page.Events[len(page.Events)-1]; last.Kind != table.EventSessionEnded {
		t.Fatalf("last event %s, want the session.ended boundary", last.Kind)
	}
}

// TestMessageAndEventAreAtomic injects a failure after the message insert:
// neither the message nor its event nor the seq survive.
func TestMessageAndEventAreAtomic(t *testing.T) {
	lt, store := newLiveTable(t)
	seqBefore, _ := store.LastEventSeq(ctx, lt.LobbyID)
	boom := errors.New("injected failure")
	lt.svc.SetFailpoint(func(point string) error {
		if point == "after_message_insert" {
			return boom
		}
		return nil
	})
	_, err := lt.svc.PostMessage(ctx, lt.Seated, lt.LobbyID, table.MessageInput{Kind: "ooc", Text: "lost"})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the injected failure", err)
	}
	lt.svc.SetFailpoint(nil)
	if n, _ := store.CountMessages(ctx, lt.LobbyID); n != 0 {
		t.Fatalf("a message survived the failed transaction")
	}
	if seq, _ := store.LastEventSeq(ctx, lt.LobbyID); seq != seqBefore {
		t.Fatalf("seq moved from %d to %d", seqBefore, seq)
	}
	page, _ := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, seqBefore, 10)
	if len(page.Events) != 0 {
		t.Fatalf("an event survived: %+v", page.Events)
	}
	// The next post takes the next seq: no gap.
	p := lt.post(t, lt.Seated, table.MessageInput{Kind: "ooc", Text: "kept"})
	if p.Event.Seq != seqBefore+1 {
		t.Fatalf("got seq %d, want %d", p.Event.Seq, seqBefore+1)
	}
}

// TestSeqUnderConcurrentWriters: 50 writers at once get seqs with no gap
// and no duplicate.
func TestSeqUnderConcurrentWriters(t *testing.T) {
	lt, _ := newLiveTable(t)
	start, _ := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	base := start.Cursor
	const writers = 50
	var wg sync.WaitGroup
	seqs := make(chan int64, writers)
	errs := make(chan error, writers)
	gate := make(chan struct{})
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			who := lt.Seated
			if i%2 == 0 {
				who = lt.Unseated
			}
			p, err := lt.svc.PostMessage(ctx, who, lt.LobbyID, table.MessageInput{Kind: "ooc", Text: fmt.Sprintf("w%d", i)})
			if err != nil {
				errs <- err
				return
			}
			seqs <- p.Event.Seq
		}()
	}
	close(gate)
	wg.Wait()
	close(seqs)
	close(errs)
	for err := range errs {
		t.Fatalf("writer failed: %v", err)
	}
	var got []int64
	for s := range seqs {
		got = append(got, s)
	}
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	for i, s := range got {
		if s != base+int64(i)+1 {
			t.Fatalf("seqs %v: gap or duplicate at %d", got, i)
		}
	}
}

func TestWaitTimeoutWakeAndCancel(t *testing.T) {
	lt, _ := newLiveTable(t)
	svc := lt.svc
	cur, _ := svc.ListEvents(ctx, lt.Seated, lt.LobbyID, 0, 200)

	page, err := svc.WaitEvents(ctx, lt.Seated, lt.LobbyID, cur.Cursor, time.Second)
	tabletest.Must(t, err)
	if len(page.Events) != 0 || page.Cursor != cur.Cursor {
		t.Fatalf("timeout: got %+v, want no events and the same cursor", page)
	}

	got := make(chan table.EventPage, 1)
	go func() {
		p, _ := svc.WaitEvents(ctx, lt.Seated, lt.LobbyID, cur.Cursor, 30*time.Second)
		got <- p
	}()
	for svc.Notifier().Waiters(lt.LobbyID) == 0 {
		time.Sleep(time.Millisecond) // waiting for the waiter to register, not for time to pass
	}
	posted := lt.post(t, lt.Unseated, table.MessageInput{Kind: "ooc", Text: "wake up"})
	p := <-got
	if len(p.Events) != 1 || p.Events[0].Seq != posted.Event.Seq {
		t.Fatalf("woken waiter got %+v, want the new event", p)
	}

	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := svc.WaitEvents(cctx, lt.Seated, lt.LobbyID, posted.Event.Seq, 30*time.Second)
		done <- err
	}()
	for svc.Notifier().Waiters(lt.LobbyID) == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait returned %v", err)
	}
	if n := svc.Notifier().Waiters(lt.LobbyID); n != 0 {
		t.Fatalf("%d waiters left after cancel", n)
	}
	_, err = svc.WaitEvents(ctx, lt.Seated, lt.LobbyID, 0, 61*time.Second)
	wantCode(t, err, apperr.InvalidRequest)
}

func TestStageRevisionConflict(t *testing.T) {
	lt, _ := newLiveTable(t)
	st, err := lt.svc.SetStage(ctx, lt.Owner, lt.LobbyID, table.StageInput{Text: "Tavern", Revision: 0})
	tabletest.Must(t, err)
	if st.Revision != 1 {
		t.Fatalf("revision %d, want 1", st.Revision)
	}
	_, err = lt.svc.SetStage(ctx, lt.Owner, lt.LobbyID, table.StageInput{Text: "Stale tab", Revision: 0})
	wantCode(t, err, apperr.StageRevisionConflict)
	r, _ := lt.svc.Resume(ctx, lt.Seated, lt.LobbyID)
	if r.Stage.Text != "Tavern" || r.Stage.Revision != 1 {
		t.Fatalf("stale write changed the stage: %+v", r.Stage)
	}
	_, err = lt.svc.SetStage(ctx, lt.DMKey, lt.LobbyID, table.StageInput{Text: "x", Revision: 1})
	wantCode(t, err, apperr.NotCurrentDM)
}

func pngBytes(t testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{200, 10, 10, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tinyWebP is a 1x1 lossless WebP.
const tinyWebP = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="

// bombPNG declares a 100000x100000 canvas in a valid header: refused from
// the header, before any pixel is decoded.
func bombPNG(t *testing.T) []byte {
	b := pngBytes(t, 1, 1)
	// IHDR: type at 12..15, width and height at 16..23, CRC of type+data
	// at 29..32.
	copy(b[16:], []byte{0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0})
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func TestStageImages(t *testing.T) {
	lt, _ := newLiveTable(t)
	webp, _ := base64.StdEncoding.DecodeString(tinyWebP)
	ok := []struct {
		name, mime string
		data       []byte
	}{
		{"PNGWhateverItIsCalled", "image/png", pngBytes(t, 40, 30)},
		{"WebP", "image/webp", webp},
	}
	for _, tt := range ok {
		img, err := lt.svc.UploadStageImage(ctx, lt.Owner, lt.LobbyID, tt.data)
		tabletest.Must(t, err)
		if img.MimeType != tt.mime {
			t.Fatalf("%s: got %s, want %s", tt.name, img.MimeType, tt.mime)
		}
		got, err := lt.svc.GetStageImage(ctx, lt.Seated, img.ID)
		tabletest.Must(t, err)
		if !bytes.Equal(got.Content, tt.data) {
			t.Fatalf("%s: stored bytes differ", tt.name)
		}
		_, err = lt.svc.GetStageImage(ctx, lt.Stranger, img.ID)
		wantCode(t, err, apperr.NotFound)
	}
	bad := []struct {
		name string
		data []byte
		want apperr.Code
	}{
		{"ErrSVGNamedJPG", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), apperr.StageImageInvalid},
		{"ErrJPEGMagicSVGBody", append([]byte{0xff, 0xd8, 0xff, 0xe0}, []byte(`<svg/>`)...), apperr.StageImageInvalid},
		{"ErrHTML", []byte("<!doctype html><script>alert(1)</script>"), apperr.StageImageInvalid},
		{"ErrTruncatedPNG", pngBytes(t, 40, 30)[:60], apperr.StageImageInvalid},
		{"ErrPixelBomb", bombPNG(t), apperr.StageImageInvalid},
		{"ErrTooLarge", append(pngBytes(t, 1, 1), make([]byte, table.MaxStageImageBytes)...), apperr.StageImageTooLarge},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lt.svc.UploadStageImage(ctx, lt.Owner, lt.LobbyID, tt.data)
			wantCode(t, err, tt.want)
		})
	}
	_, err := lt.svc.UploadStageImage(ctx, lt.Owner, lt.LobbyID, bombPNG(t))
	if e, _ := apperr.As(err); e == nil || e.Details["max_pixels"] == nil {
		t.Fatalf("pixel bomb refused for the wrong reason: %v", err)
	}
	exact := make([]byte, table.MaxStageImageBytes+1)
	_, err = lt.svc.UploadStageImage(ctx, lt.Owner, lt.LobbyID, exact)
	wantCode(t, err, apperr.StageImageTooLarge)
	_, err = lt.svc.UploadStageImage(ctx, lt.Seated, lt.LobbyID, pngBytes(t, 2, 2))
	wantCode(t, err, apperr.NotCurrentDM)
}

func TestSlashInput(t *testing.T) {
	lt, _ := newLiveTable(t)
	tests := []struct {
		line, kind, intent, check string
	}{
		{"Hello", "character_dialogue", "", ""},
		{"/action I draw my sword", "action", "", ""},
		{"/search the chest", "action", "search", ""},
		{"/ooc pizza's here", "ooc", "", ""},
		{"/whisper I keep the ring", "whisper_dm", "", ""},
		{"/w I keep the ring", "whisper_dm", "", ""},
		{"/check perception is anyone there?", "action", "check", "perception"},
		{"/CHECK dex", "action", "check", "dex"},
	}
	for _, tt := range tests {
		p, err := lt.svc.PostInput(ctx, lt.Seated, lt.LobbyID, table.InputLine{Text: tt.line})
		tabletest.Must(t, err)
		payload := string(p.Event.Payload)
		if !strings.Contains(payload, `"kind":"`+tt.kind+`"`) || !strings.Contains(payload, `"intent":"`+tt.intent+`"`) || !strings.Contains(payload, `"check":"`+tt.check+`"`) {
			t.Errorf("%q posted %s", tt.line, payload)
		}
	}
	_, err := lt.svc.PostInput(ctx, lt.Seated, lt.LobbyID, table.InputLine{Text: "/dance wildly"})
	wantCode(t, err, apperr.UnknownCommand)
	e, _ := apperr.As(err)
	if fmt.Sprint(e.Details["known"]) != "[/action /check /gmroll /npc /ooc /r /roll /search /w /whisper]" {
		t.Fatalf("known commands %v", e.Details["known"])
	}
	_, err = lt.svc.PostInput(ctx, lt.Seated, lt.LobbyID, table.InputLine{Text: "/check luck"})
	wantCode(t, err, apperr.MessageTextInvalid)
	// The DM's plain text is narration.
	p, err := lt.svc.PostInput(ctx, lt.Owner, lt.LobbyID, table.InputLine{Text: "Rain falls."})
	tabletest.Must(t, err)
	if !strings.Contains(string(p.Event.Payload), `"kind":"narration"`) {
		t.Fatalf("DM plain text posted %s", p.Event.Payload)
	}
	// The DM voices an NPC: narration with the NPC as its speaker.
	p, err = lt.svc.PostInput(ctx, lt.Owner, lt.LobbyID, table.InputLine{Text: "/NPC  Guard captain :  Halt! Who goes there?"})
	tabletest.Must(t, err)
	if payload := string(p.Event.Payload); !strings.Contains(payload, `"kind":"narration"`) || !strings.Contains(payload, `"speaker":"Guard captain"`) ||
		!strings.Contains(payload, `"text":"Halt! Who goes there?"`) {
		t.Fatalf("/npc posted %s", payload)
	}
	// Only the DM speaks as an NPC, and not while acting for a seat; a
	// line without the NPC's name, or with nothing said, is refused.
	seq := p.Event.Seq
	_, err = lt.svc.PostInput(ctx, lt.Seated, lt.LobbyID, table.InputLine{Text: "/npc Guard: Halt!"})
	wantCode(t, err, apperr.MessageKindNotAllowed)
	_, err = lt.svc.PostInput(ctx, lt.Owner, lt.LobbyID, table.InputLine{Text: "/npc Guard: Halt!", SubjectSeatID: &lt.PlayerSeatID})
	wantCode(t, err, apperr.InvalidRequest)
	for _, line := range []string{"/npc", "/npc Halt!", "/npc : Halt!", "/npc Guard:", "/npc " + strings.Repeat("g", table.MaxSpeakerLength+1) + ": Halt!"} {
		_, err = lt.svc.PostInput(ctx, lt.Owner, lt.LobbyID, table.InputLine{Text: line})
		if code := apperr.CodeOf(err); code != apperr.MessageTextInvalid && code != apperr.InvalidRequest {
			t.Errorf("%q: %v", line, err)
		}
	}
	if page, err := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, seq, 10); err != nil || len(page.Events) != 0 {
		t.Fatalf("refused /npc lines posted %d events (%v)", len(page.Events), err)
	}
}

func TestResumeCarriesStageAndCursor(t *testing.T) {
	lt, _ := newLiveTable(t)
	_, err := lt.svc.SetStage(ctx, lt.Owner, lt.LobbyID, table.StageInput{Text: "Bridge", Revision: 0})
	tabletest.Must(t, err)
	p := lt.post(t, lt.Seated, table.MessageInput{Kind: "whisper_dm", Text: "secret"})
	r, err := lt.svc.Resume(ctx, lt.Unseated, lt.LobbyID)
	tabletest.Must(t, err)
	if r.Stage.Text != "Bridge" || r.Cursor != p.Event.Seq {
		t.Fatalf("resume stage %+v cursor %d, want Bridge and %d", r.Stage, r.Cursor, p.Event.Seq)
	}
	for _, e := range r.RecentEvents {
		if strings.Contains(string(e.Payload), "secret") {
			t.Fatal("another player's whisper is in the resume")
		}
	}
}

// TestNPCSpeech: the DM's narration may name an NPC speaker; nobody else
// may, and a speaker never combines with speaking for a player seat.
func TestNPCSpeech(t *testing.T) {
	lt, _ := newLiveTable(t)
	p, err := lt.svc.PostMessage(ctx, lt.Owner, lt.LobbyID, table.MessageInput{Kind: "narration", Text: "Welcome, travellers.", Speaker: " Old Tom "})
	tabletest.Must(t, err)
	if !strings.Contains(string(p.Event.Payload), `"speaker":"Old Tom"`) {
		t.Fatalf("NPC speech posted %s", p.Event.Payload)
	}
	plain, err := lt.svc.PostMessage(ctx, lt.Owner, lt.LobbyID, table.MessageInput{Kind: "narration", Text: "Rain falls."})
	tabletest.Must(t, err)
	if strings.Contains(string(plain.Event.Payload), "speaker") {
		t.Fatalf("plain narration carries a speaker: %s", plain.Event.Payload)
	}
	_, err = lt.svc.PostMessage(ctx, lt.Seated, lt.LobbyID, table.MessageInput{Kind: "say", Text: "Hi", Speaker: "Old Tom"})
	wantCode(t, err, apperr.MessageKindNotAllowed)
	_, err = lt.svc.PostMessage(ctx, lt.Owner, lt.LobbyID, table.MessageInput{Kind: "say", Text: "Hi", Speaker: "Old Tom", SubjectSeatID: &lt.PlayerSeatID})
	wantCode(t, err, apperr.InvalidRequest)
	_, err = lt.svc.PostMessage(ctx, lt.Owner, lt.LobbyID, table.MessageInput{Kind: "ooc", Text: "Hi", Speaker: "Old Tom"})
	wantCode(t, err, apperr.InvalidRequest)
	_, err = lt.svc.PostMessage(ctx, lt.Owner, lt.LobbyID, table.MessageInput{Kind: "say", Text: "Hi", Speaker: strings.Repeat("x", 61)})
	wantCode(t, err, apperr.InvalidRequest)
}
