package table

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// A campaign remembers (issue 31): the solo memory bank's machinery
// (narrative/memory.go) over a campaign's session events. A memory is made
// only from the events one audience saw and carries that audience, so
// recall for a seat (campaign_memory_recall.go) can give it only what it
// saw. Like the solo bank the work is derived: a job says only "this
// campaign may have work", and the marks are the memories themselves, the
// deepest ToSeq per (session, audience key). A block is written in its own
// short transaction as soon as its text is ready, so a job that dies
// midway redoes only what it had not committed, and the unique index on
// (session, audience key, ToSeq) makes a block impossible to write twice.

// Model is where the campaign memory's completions come from: the
// narrative service's CallModel (the room owner's settings, or the demo
// narrator where the narrative service allows it).
type Model interface {
	CallModel(ctx context.Context, userID int64, r llm.Request, onEvent func(llm.Event)) (llm.Result, error)
}

// MemoryOptions configures the campaign memory work.
type MemoryOptions struct {
	// Model writes the memories; nil: every memory is extracted from its
	// block's lines.
	Model Model
	// ProcessID prefixes this process's job claims, so a restart frees
	// what its dead previous run held (RecoverCampaignMemoryJobs).
	ProcessID string
	Logger    *slog.Logger
}

// Job tuning.
const (
	// campaignMemoryLease is how long a claimed job is its worker's without
	// renewal; each written memory renews it.
	campaignMemoryLease = 3 * time.Minute
	// campaignMemoryPoll is how often an idle worker looks for jobs other
	// processes enqueued or a dead one left.
	campaignMemoryPoll = 5 * time.Second
	// campaignMemoryCall bounds one model call; past it the block's memory
	// is extracted instead (well inside the lease).
	campaignMemoryCall = 90 * time.Second
	// eventPage is how many events one read of a session's events takes.
	eventPage = 500
)

// memoryState is the service's campaign memory: its model and worker.
type memoryState struct {
	model     Model
	processID string
	log       *slog.Logger
	wake      chan struct{}
	// due says a transaction enqueued a job; the next commit's Notify
	// wakes the worker (a wake before that commit would find nothing).
	due atomic.Bool
}

// UseMemory sets the campaign memory's model and process name; call it
// before the worker starts.
func (s *Service) UseMemory(o MemoryOptions) {
	s.memory.model, s.memory.processID, s.memory.log = o.Model, o.ProcessID, o.Logger
	if s.memory.processID == "" {
		s.memory.processID = randomHex(8)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Service) memoryLog() *slog.Logger {
	if s.memory.log != nil {
		return s.memory.log
	}
	return slog.New(slog.DiscardHandler)
}

// enqueueCampaignMemory asks for the memory work of the session's
// campaign, inside the transaction that writes the event with seq: one
// upsert, and only at the cadence a block can close (every
// campaignBlockSize events of the session, and the event that ends it,
// which finish appends, since a session's end closes every audience's last
// block). An audience whose block closed between two such events is served
// at the next.
func (s *Service) enqueueCampaignMemory(ctx context.Context, tx *models.Store, sessionID, seq int64, kind string) error {
	if seq%campaignBlockSize != 0 && kind != EventSessionEnded && kind != EventSessionAbandoned {
		return nil
	}
	if err := tx.EnqueueCampaignMemoryJobOfSession(ctx, sessionID, s.now()); err != nil {
		return err
	}
	s.memory.due.Store(true)
	return nil
}

// wakeMemory wakes the worker after a commit that may have enqueued a job.
func (s *Service) wakeMemory() {
	if s.memory.due.Swap(false) {
		select {
		case s.memory.wake <- struct{}{}:
		default:
		}
	}
}

// RecoverCampaignMemoryJobs frees, at start-up, the campaign memory jobs a
// dead previous run of this process had claimed, so their work resumes at
// once.
func (s *Service) RecoverCampaignMemoryJobs(ctx context.Context) (int64, error) {
	return s.store.ReleaseCampaignMemoryJobs(ctx, s.memory.processID+".")
}

// RunCampaignMemoryWorker runs campaign memory jobs until ctx ends or the
// server shuts down: at once when this process enqueues one, and every few
// seconds for jobs other processes enqueued or left behind.
func (s *Service) RunCampaignMemoryWorker(ctx context.Context) {
	ticker := time.NewTicker(campaignMemoryPoll)
	defer ticker.Stop()
	for {
		for {
			ran, err := s.RunCampaignMemoryJob(ctx)
			if err != nil && ctx.Err() == nil {
				s.memoryLog().Warn("campaign memory job failed", "error", err)
			}
			if !ran || ctx.Err() != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.Stopping():
			return
		case <-s.memory.wake:
		case <-ticker.C:
		}
	}
}

// DrainCampaignMemoryJobs runs due jobs until none is left and returns how
// many ran and the first failure.
func (s *Service) DrainCampaignMemoryJobs(ctx context.Context) (int, error) {
	n := 0
	var first error
	for {
		ran, err := s.RunCampaignMemoryJob(ctx)
		if err != nil && first == nil {
			first = err
		}
		if !ran {
			return n, first
		}
		n++
	}
}

// RunCampaignMemoryJob claims one due job and does its work. It reports
// whether a job was due; the error is the job's failure, also kept on the
// job row.
func (s *Service) RunCampaignMemoryJob(ctx context.Context) (bool, error) {
	now := s.now()
	job, err := s.store.ClaimCampaignMemoryJob(ctx, s.memory.processID+"."+randomHex(8), now, now.Add(campaignMemoryLease))
	if err != nil || job == nil {
		return false, err
	}
	workErr := s.campaignMemoryWork(ctx, job)
	if ctx.Err() != nil {
		// The process is stopping: the claim stays, as after a crash, and
		// the job stays due; the restart frees it at once
		// (RecoverCampaignMemoryJobs), another process after the lease.
		return true, workErr
	}
	msg := ""
	if workErr != nil {
		msg = prompt.ClipMarked(workErr.Error(), 500)
	}
	if err := s.store.FinishCampaignMemoryJob(context.WithoutCancel(ctx), job, msg, s.now()); err != nil && workErr == nil {
		workErr = err
	}
	return true, workErr
}

// campaignBank is one run of a campaign's memory work.
type campaignBank struct {
	s       *Service
	job     *models.CampaignMemoryJob
	camp    *models.Campaign
	owner   int64 // the model's user: the room owner
	names   seatNames
	premise string
}

// pendingLine is an event of one audience not yet in a memory.
type pendingLine struct {
	seq  int64
	text string
}

// campaignMemoryWork brings a campaign's memories up to date: for each
// session, each audience's events past its mark, a memory per block of
// campaignBlockSize lines, and, once the session is over, one for the
// rest. Then the session recap's turn (afterCampaignMemory).
func (s *Service) campaignMemoryWork(ctx context.Context, job *models.CampaignMemoryJob) error {
	camp, err := s.store.FindCampaignByID(ctx, job.CampaignID)
	if err != nil {
		return err
	}
	sessions, err := s.store.FindCampaignSessions(ctx, camp.ID)
	if err != nil {
		return err
	}
	rows, err := s.store.CampaignMemoryMarks(ctx, camp.ID)
	if err != nil {
		return err
	}
	marks := map[int64]map[string]int64{}
	for _, m := range rows {
		if marks[m.SessionID] == nil {
			marks[m.SessionID] = map[string]int64{}
		}
		marks[m.SessionID][m.AudienceKey] = m.ToSeq
	}
	var b *campaignBank
	for _, se := range sessions {
		over := se.Status == models.SessionEnded || se.Status == models.SessionAbandoned
		// An ended session is done once its table's last block, which
		// ends on the session's last event (the end), is written: the
		// other audiences' blocks are written before it (writeSession).
		if se.LastEventSeq == 0 || over && marks[se.ID][models.AudienceTable] >= se.LastEventSeq {
			continue
		}
		if b == nil {
			if b, err = s.openBank(ctx, job, camp); err != nil {
				return err
			}
		}
		if err := b.writeSession(ctx, se, over, marks[se.ID]); err != nil {
			return err
		}
	}
	return s.afterCampaignMemory(ctx, camp.ID)
}

// afterCampaignMemory runs at the end of a campaign's memory work, once
// every block that could be written is.
// The recaps waiting for a draft are written now, from memories that
// cover every earlier session.
func (s *Service) afterCampaignMemory(ctx context.Context, campaignID int64) error {
	var write RecapWriter
	if model := s.memory.model; model != nil {
		write = func(ctx context.Context, ownerID int64, msgs []llm.Message) (string, error) {
			cctx, cancel := context.WithTimeout(ctx, campaignMemoryCall)
			defer cancel()
			res, err := model.CallModel(cctx, ownerID, llm.Request{Messages: msgs}, func(llm.Event) {})
			return res.Text, err
		}
	}
	return s.DraftRecaps(ctx, campaignID, write)
}

// openBank reads what writing memories needs: the model's user and the
// names and setting the whole table knows.
func (s *Service) openBank(ctx context.Context, job *models.CampaignMemoryJob, camp *models.Campaign) (*campaignBank, error) {
	room, err := s.store.FindRoomByID(ctx, camp.RoomID)
	if err != nil {
		return nil, err
	}
	seats, err := s.store.FindSeatsOfCampaigns(ctx, []int64{camp.ID})
	if err != nil {
		return nil, err
	}
	chars, err := charactersByID(ctx, s.store, seatCharacterIDs(seats))
	if err != nil {
		return nil, err
	}
	w, err := s.store.FindCampaignWorld(ctx, camp.ID)
	if err != nil {
		return nil, err
	}
	return &campaignBank{s: s, job: job, camp: camp, owner: room.OwnerUserID, names: namesOfSeats(seats, chars), premise: w.Premise}, nil
}

// writeSession writes a session's closed blocks, audience by audience,
// and when it is over the rest of each; the table's come last, so the
// table's final block (on the session's end) marks the session done only
// once every other audience's is written.
func (b *campaignBank) writeSession(ctx context.Context, se models.CampaignSession, over bool, marks map[string]int64) error {
	audiences := map[string]memoryAudience{}
	pending := map[string][]pendingLine{}
	for after := int64(0); ; {
		events, err := b.s.store.FindEventsAfter(ctx, se.ID, after, eventPage)
		if err != nil {
			return err
		}
		for _, e := range events {
			a := eventAudience(e, se.DMSeatID)
			if e.Seq <= marks[a.key] {
				continue
			}
			line := eventLine(e.Kind, e.ActingSeatID, e.SubjectSeatID, []byte(e.Payload), b.names)
			if line == "" {
				continue
			}
			audiences[a.key] = a
			pending[a.key] = append(pending[a.key], pendingLine{seq: e.Seq, text: line})
		}
		if len(events) < eventPage {
			break
		}
		after = events[len(events)-1].Seq
	}
	keys := make([]string, 0, len(pending))
	for k := range pending {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		switch {
		case x == y:
			return 0
		case x == models.AudienceTable:
			return 1
		case y == models.AudienceTable:
			return -1
		case x < y:
			return -1
		}
		return 1
	})
	for _, k := range keys {
		lines := pending[k]
		for len(lines) >= campaignBlockSize || over && len(lines) > 0 {
			block := lines[:min(len(lines), campaignBlockSize)]
			if err := b.writeBlock(ctx, se.ID, audiences[k], block); err != nil {
				return err
			}
			lines = lines[len(block):]
		}
	}
	return nil
}

// writeBlock writes one block's memory in its own transaction, renewing
// the job's claim. A block another worker wrote meanwhile (a conflict on
// the unique index) is left as it is.
func (b *campaignBank) writeBlock(ctx context.Context, sessionID int64, a memoryAudience, block []pendingLine) error {
	texts := make([]string, len(block))
	for i, l := range block {
		texts[i] = l.text
	}
	text, err := b.memoryText(ctx, a, texts)
	if err != nil {
		return err
	}
	seats := a.seats
	if seats == nil {
		seats = []int64{}
	}
	now := b.s.now()
	m := models.CampaignMemory{CampaignID: b.camp.ID, SessionID: sessionID, Audience: a.kind, SeatIDs: seats, AudienceKey: a.key,
		Kind: models.CampaignMemoryBlock, FromSeq: block[0].seq, ToSeq: block[len(block)-1].seq, Text: text, CreatedAt: now, UpdatedAt: now}
	err = b.s.store.Tx(ctx, func(tx *models.Store) error {
		if err := tx.CreateCampaignMemory(ctx, &m); err != nil {
			return err
		}
		return tx.RenewCampaignMemoryJob(ctx, b.job, now.Add(campaignMemoryLease))
	})
	if apperr.CodeOf(err) == apperr.Conflict {
		return nil
	}
	return err
}

// memoryText is the block's memory from the model, or, with no model or
// when the model fails (no endpoint configured, an error, a timeout, an
// empty reply), extracted from its lines: a block always gets a memory.
// Only the job's own end (ctx) stops it.
func (b *campaignBank) memoryText(ctx context.Context, a memoryAudience, lines []string) (string, error) {
	model := b.s.memory.model
	if model == nil {
		return extractMemory(lines), nil
	}
	cctx, cancel := context.WithTimeout(ctx, campaignMemoryCall)
	defer cancel()
	res, err := model.CallModel(cctx, b.owner, llm.Request{Messages: campaignMemoryMessages(b.names, b.premise, a, lines)}, func(llm.Event) {})
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	text := prompt.CleanMemory(models.CleanText(res.Text), maxCampaignMemoryWords)
	if err == nil && text == "" {
		err = errors.New("the model wrote an empty memory")
	}
	if err != nil {
		b.s.memoryLog().Info("campaign memory extracted without the model", "campaign_id", b.camp.ID, "error", fmt.Sprint(apperr.CodeOf(err)))
		return extractMemory(lines), nil
	}
	return text, nil
}
