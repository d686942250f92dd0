package narrative

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
)

// The memory bank (seed §2.6) is derived work: everything it writes follows
// from the story tree, so a job only says "this adventure may have work" and
// the worker finds out what. Its marks are the memories themselves: a line
// has summarized up to the deepest block memory that hangs off it, an anchor
// (branch_id, depth) that only moves when a memory is written (on success)
// and that each line reads for itself, so switching lines never redoes the
// other line's work. A failed call writes nothing; the next turn enqueues
// the adventure again, so the cadence is the retry.

// Job tuning.
const (
	// memoryLease is how long a claimed job is its worker's without
	// renewal; each written memory renews it. A worker that dies is
	// replaced after this (at once when its own process restarts).
	memoryLease = 3 * time.Minute
	// memoryPoll is how often an idle worker looks for jobs that another
	// process enqueued or a dead one left.
	memoryPoll = 5 * time.Second
	// embedBatch is how many texts one embedding request carries.
	embedBatch = 32
	// Output caps of the background calls.
	memoryOutputTokens  = 160
	summaryOutputTokens = 500
	// queryTurns is how many of the newest turns are the retrieval query:
	// the player's action and what led to it. More dilutes the action that
	// should recall (SillyTavern queries with its last 2 messages, the seed
	// with 4).
	queryTurns = 3
	// queryEmbedTimeout bounds the one embedding call on the turn path;
	// past it the turn recalls lexically instead of waiting.
	queryEmbedTimeout = 10 * time.Second
)

// Defaults of the user's memory settings.
const (
	DefaultMemoryTopK     = 5
	DefaultMemoryCapacity = 200
	// Snapshot retention defaults (Options): the newest this many prompt
	// snapshots of an adventure are kept, and none older than the age.
	DefaultSnapshotKeep   = 100
	DefaultSnapshotMaxAge = 90 * 24 * time.Hour
)

// wakeMemory nudges the worker after a commit that enqueued a job.
func (s *Service) wakeMemory() {
	select {
	case s.memoryWake <- struct{}{}:
	default:
	}
}

// enqueueMemory asks for the adventure's memory work, inside the caller's
// transaction so the job exists exactly when the change that needs it does.
func (s *Service) enqueueMemory(ctx context.Context, tx *models.Store, adventureID int64) error {
	return tx.EnqueueMemoryJob(ctx, adventureID, s.now().UTC())
}

// RecoverMemoryJobs frees, at start-up, the jobs a dead previous run of
// this process had claimed, so their work resumes at once.
func (s *Service) RecoverMemoryJobs(ctx context.Context) (int64, error) {
	return s.store.ReleaseMemoryJobs(ctx, s.processID+".")
}

// RunMemoryWorker runs memory jobs until ctx ends or the server shuts down:
// at once when this process enqueues one, and every few seconds for jobs
// other processes sharing the database enqueued or left behind.
func (s *Service) RunMemoryWorker(ctx context.Context) {
	ticker := time.NewTicker(memoryPoll)
	defer ticker.Stop()
	for {
		for {
			ran, err := s.RunMemoryJob(ctx)
			if err != nil {
				s.log.Warn("memory job failed", "error", err)
			}
			if !ran || ctx.Err() != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.stopping.Done():
			return
		case <-s.memoryWake:
		case <-ticker.C:
		}
	}
}

// DrainMemoryJobs runs due jobs until none is left and returns how many ran
// and the first failure.
func (s *Service) DrainMemoryJobs(ctx context.Context) (int, error) {
	n := 0
	var first error
	for {
		ran, err := s.RunMemoryJob(ctx)
		if err != nil && first == nil {
			first = err
		}
		if !ran {
			return n, first
		}
		n++
	}
}

// RunMemoryJob claims one due job and does its work. It reports whether a
// job was due; the error is the job's failure, also kept on the job row.
func (s *Service) RunMemoryJob(ctx context.Context) (bool, error) {
	now := s.now().UTC()
	job, err := s.store.ClaimMemoryJob(ctx, s.claimToken(), now, now.Add(memoryLease))
	if err != nil || job == nil {
		return false, err
	}
	workErr := s.memoryWork(ctx, job)
	msg := ""
	if workErr != nil {
		msg = clip(workErr.Error(), 500)
	}
	if err := s.store.FinishMemoryJob(context.WithoutCancel(ctx), job, msg, s.now().UTC()); err != nil && workErr == nil {
		workErr = err
	}
	return true, workErr
}

// bank is one run of an adventure's memory work.
type bank struct {
	s        *Service
	job      *models.MemoryJob
	adv      *models.Adventure
	h        head
	settings models.ProviderSetting
	llm      llm.Settings
}

// memoryWork brings an adventure's bank up to date on its current line:
// rewrites stale memories, summarizes closed blocks, folds them into the
// running summary, embeds what has no vector for the chosen model, forgets
// the least used over capacity and drops expired prompt snapshots. Each
// memory is written in its own short transaction as soon as its call
// returns, so a crash loses at most the call in flight.
func (s *Service) memoryWork(ctx context.Context, job *models.MemoryJob) error {
	adv, err := s.store.FindAdventure(ctx, job.AdventureID)
	if err != nil {
		return err
	}
	h, err := loadHead(ctx, s.store, adv)
	if err != nil {
		return err
	}
	// Background calls are the user's own settings, never a server-funded
	// key: unmetered background work on a shared key would be a bill.
	settings, err := s.loadSettings(ctx, s.store, adv.UserID)
	if err != nil {
		return err
	}
	ls, err := s.llmSettings(settings)
	if err != nil {
		return err
	}
	b := &bank{s: s, job: job, adv: adv, h: h, settings: settings, llm: ls}
	// A user the demo narrator serves has no endpoint of their own: the
	// bank makes no model calls for them (no summaries, no vectors; their
	// hand-written notes still recall lexically) rather than send them
	// to the default endpoint a hosted server refuses, or to the demo.
	if !s.demoServes(settings) {
		err = errors.Join(b.refreshStale(ctx), b.closeBlocks(ctx))
		if err == nil {
			err = b.summarize(ctx)
		}
		err = errors.Join(err, b.embed(ctx))
	}
	if _, ferr := s.store.ForgetLeastUsed(ctx, adv.ID, cmpPositive(settings.MemoryCapacity, DefaultMemoryCapacity), s.now()); ferr != nil {
		err = errors.Join(err, ferr)
	}
	var olderThan time.Time
	if s.snapshotMaxAge > 0 {
		olderThan = s.now().UTC().Add(-s.snapshotMaxAge)
	}
	if _, xerr := s.expireSnapshots(ctx, adv.ID, s.snapshotKeep, olderThan); xerr != nil {
		err = errors.Join(err, xerr)
	}
	return err
}

func cmpPositive(v, fallback int) int {
	if v > 0 {
		return v
	}
	return fallback
}

// complete makes one background call and returns its cleaned text.
func (b *bank) complete(ctx context.Context, messages []llm.Message, maxTokens, maxWords int) (string, error) {
	ls := b.llm
	ls.MaxOutputTokens = max(maxTokens, min(ls.MaxOutputTokens, 4*maxTokens))
	ls.Temperature = min(ls.Temperature, 0.5)
	res, err := b.s.stream(ctx, 0, ls, llm.Request{Messages: messages}, false, func(llm.Event) {})
	if err != nil {
		return "", providerError(err)
	}
	text := cleanMemory(res.Text, maxWords)
	if text == "" {
		return "", fmt.Errorf("the model wrote an empty memory")
	}
	return text, nil
}

// cards are the story cards on the bank's line, for the cast brief.
func (b *bank) cards(ctx context.Context) ([]prompt.Card, error) {
	rows, err := enabledCards(b.s.store.AdventureCards(ctx, b.adv.ID, b.h.line))
	return promptCards(rows), err
}

// blockTurns renders nodes (oldest first) as the passage the memory prompt shows.
func blockTurns(rows []models.ActionRow) []prompt.Turn {
	out := make([]prompt.Turn, len(rows))
	for i, r := range rows {
		out[i] = prompt.Turn{ID: r.ID, Kind: r.Kind, Text: storyLine(r.Kind, r.Mode, r.Text)}
	}
	return out
}

// lineFrom returns a line's live nodes from depth from on, oldest first.
func lineFrom(ctx context.Context, store *models.Store, line []models.LineSegment, from int) ([]models.ActionRow, error) {
	rows, err := store.LineTail(ctx, models.LineQuery{Line: line, MinDepth: from, TextOnly: true})
	slices.Reverse(rows)
	return rows, err
}

// write stores one memory in its own transaction, after checking that the
// node it hangs off is still the live node there (the player may have
// undone or retried it while the call ran), and renews the job's claim.
func (b *bank) write(ctx context.Context, anchor models.ActionRow, fn func(tx *models.Store) error) error {
	return b.s.store.Tx(ctx, func(tx *models.Store) error {
		live, err := tx.LiveActionAt(ctx, anchor.BranchID, anchor.Depth)
		if err != nil || live == nil || live.ID != anchor.ID {
			return err // moved on meanwhile: the next cadence sees the new story
		}
		if err := fn(tx); err != nil {
			return err
		}
		return tx.RenewMemoryJob(ctx, b.job, b.s.now().UTC().Add(memoryLease))
	})
}

// closeBlocks summarizes every block of blockSize actions on the line that
// has settled: the line's mark is its deepest block memory, and a block is
// written once settleSlack more actions follow it.
func (b *bank) closeBlocks(ctx context.Context) error {
	store := b.s.store
	marks, err := store.LineMemories(ctx, models.MemoryQuery{AdventureID: b.adv.ID, Line: b.h.line, Kinds: []string{models.MemoryBlock}, NoVectors: true})
	if err != nil {
		return err
	}
	mark := -1
	for _, m := range marks {
		mark = max(mark, m.Depth)
	}
	rows, err := lineFrom(ctx, store, b.h.line, mark+1)
	if err != nil || len(rows) < blockSize+settleSlack {
		return err
	}
	cards, err := b.cards(ctx)
	if err != nil {
		return err
	}
	for len(rows) >= blockSize+settleSlack {
		block := rows[:blockSize]
		text, err := b.complete(ctx, memoryMessages(b.adv, cards, blockTurns(block), framingRule), memoryOutputTokens, maxMemoryWords)
		if err != nil {
			return err
		}
		end := block[len(block)-1]
		err = b.write(ctx, end, func(tx *models.Store) error {
			now := b.s.now()
			return tx.CreateMemory(ctx, &models.Memory{AdventureID: b.adv.ID, BranchID: end.BranchID, Depth: end.Depth, FromDepth: block[0].Depth,
				Kind: models.MemoryBlock, Text: text, CreatedAt: now, UpdatedAt: now})
		})
		if err != nil {
			return err
		}
		rows = rows[blockSize:]
	}
	return nil
}

// refreshStale rewrites the block memories on the line whose turns were
// edited or deleted since they were written, from the turns their block now
// holds; a block left with no turns is withdrawn. Stale summaries are
// withdrawn and summarize writes the summary again.
func (b *bank) refreshStale(ctx context.Context) error {
	store := b.s.store
	mems, err := store.LineMemories(ctx, models.MemoryQuery{AdventureID: b.adv.ID, Line: b.h.line,
		Kinds: []string{models.MemoryBlock, models.MemorySummary}, NoVectors: true})
	if err != nil {
		return err
	}
	var cards []prompt.Card
	for _, m := range mems {
		if !m.Stale {
			continue
		}
		if m.Kind == models.MemorySummary {
			if err := store.DeleteMemories(ctx, []int64{m.ID}); err != nil {
				return err
			}
			continue
		}
		br, err := store.FindBranch(ctx, b.adv.ID, m.BranchID)
		if err != nil {
			return err
		}
		rows, err := lineFrom(ctx, store, lineOf(br, m.Depth), m.FromDepth)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			if err := store.DeleteMemories(ctx, []int64{m.ID}); err != nil {
				return err
			}
			continue
		}
		if cards == nil {
			if cards, err = b.cards(ctx); err != nil {
				return err
			}
		}
		text, err := b.complete(ctx, memoryMessages(b.adv, cards, blockTurns(rows), framingRule), memoryOutputTokens, maxMemoryWords)
		if err != nil {
			return err
		}
		err = store.Tx(ctx, func(tx *models.Store) error {
			if err := tx.UpdateMemory(ctx, m.ID, map[string]any{"text": text, "stale": false, "embedding": nil,
				"embedding_model": "", "updated_at": b.s.now()}); err != nil {
				return err
			}
			return tx.RenewMemoryJob(ctx, b.job, b.s.now().UTC().Add(memoryLease))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// summarize folds the block memories written since the line's running
// summary into a new one once they cover summaryEvery actions. The summary
// hangs off the newest block it folds in, so forks inherit it like any
// memory.
func (b *bank) summarize(ctx context.Context) error {
	store := b.s.store
	mems, err := store.LineMemories(ctx, models.MemoryQuery{AdventureID: b.adv.ID, Line: b.h.line,
		Kinds: []string{models.MemoryBlock, models.MemorySummary}, NoVectors: true})
	if err != nil {
		return err
	}
	previous, through := "", -1
	for _, m := range mems {
		if m.Kind == models.MemorySummary && m.Depth >= through {
			previous, through = m.Text, m.Depth
		}
	}
	var bullets []string
	var newest *models.Memory
	for i, m := range mems {
		if m.Kind == models.MemoryBlock && m.Depth > through {
			bullets = append(bullets, m.Text)
			newest = &mems[i]
		}
	}
	if newest == nil || newest.Depth-through < summaryEvery {
		return nil
	}
	text, err := b.complete(ctx, summaryMessages(b.adv, previous, bullets), summaryOutputTokens, maxSummaryWords)
	if err != nil {
		return err
	}
	anchor, err := store.LiveActionAt(ctx, newest.BranchID, newest.Depth)
	if err != nil || anchor == nil {
		return err
	}
	return b.write(ctx, *anchor, func(tx *models.Store) error {
		now := b.s.now()
		return tx.CreateMemory(ctx, &models.Memory{AdventureID: b.adv.ID, BranchID: newest.BranchID, Depth: newest.Depth,
			Kind: models.MemorySummary, Text: text, CreatedAt: now, UpdatedAt: now})
	})
}

// embed gives every remembered memory on the line a vector from the user's
// embedding model, when one is set; a vector from another model is
// replaced (it would score 0 against the new model's queries anyway).
func (b *bank) embed(ctx context.Context) error {
	model := b.settings.EmbeddingModel
	if model == "" {
		return nil
	}
	mems, err := b.s.store.LineMemories(ctx, models.MemoryQuery{AdventureID: b.adv.ID, Line: b.h.line,
		Kinds: []string{models.MemoryBlock, models.MemoryNote}, Remembered: true, NoVectors: true})
	if err != nil {
		return err
	}
	var todo []models.Memory
	for _, m := range mems {
		if m.EmbeddingModel != model {
			todo = append(todo, m)
		}
	}
	ls := b.llm
	ls.Model = model
	for len(todo) > 0 {
		batch := todo[:min(len(todo), embedBatch)]
		todo = todo[len(batch):]
		texts := make([]string, len(batch))
		for i, m := range batch {
			texts[i] = m.Text
		}
		vecs, err := b.s.provider.Embed(ctx, ls, texts)
		if err != nil {
			return providerError(err)
		}
		err = b.s.store.Tx(ctx, func(tx *models.Store) error {
			for i, m := range batch {
				if err := tx.UpdateMemory(ctx, m.ID, map[string]any{"embedding": encodeVector(vecs[i]), "embedding_model": model, "updated_at": b.s.now()}); err != nil {
					return err
				}
			}
			return tx.RenewMemoryJob(ctx, b.job, b.s.now().UTC().Add(memoryLease))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// encodeVector stores a vector as little-endian float32s.
func encodeVector(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// decodeVector reads encodeVector's bytes; a torn value reads as none.
func decodeVector(b []byte) []float32 {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// staleAround marks stale the memories that describe node n: the block
// memories and summaries covering its depth on every branch whose line
// passes through it.
func staleAround(ctx context.Context, tx *models.Store, adventureID int64, n *models.ActionRow) error {
	branches, err := tx.ListBranches(ctx, adventureID)
	if err != nil {
		return err
	}
	ids := []int64{n.BranchID}
	for _, b := range branches {
		for _, seg := range lineage(&b.Branch) {
			if seg.BranchID == n.BranchID && seg.MaxDepth >= n.Depth {
				ids = append(ids, b.ID)
			}
		}
	}
	return tx.MarkMemoriesStale(ctx, adventureID, ids, n.Depth)
}

// queryText is the retrieval query: the newest turns of the window the
// prompt uses, which already leaves out the take being retried.
func queryText(history []prompt.Turn) string {
	var parts []string
	for _, t := range history[max(0, len(history)-queryTurns):] {
		parts = append(parts, t.Text)
	}
	return strings.Join(parts, "\n")
}

// MemoryReplay is one block memory written again through a prompt.
type MemoryReplay struct {
	ID        int64  `json:"id"`
	BranchID  int64  `json:"branch_id"`
	FromDepth int    `json:"from_depth"`
	Depth     int    `json:"depth"`
	Stored    string `json:"stored"`
	Replayed  string `json:"replayed"`
}

// DefaultFraming is the framing rule of the current memory prompt; the A/B
// harness compares another against it.
const DefaultFraming = framingRule

// ReplayMemories writes every block memory of an adventure (all lines)
// again from its block's turns through the memory prompt with the given
// framing rule (DefaultFraming for the current prompt), with the owner's
// model settings, and returns old and new side by side. With save, the new
// texts replace the stored ones (their vectors are dropped for the worker
// to embed again): the bank writes each memory once, so this is how an
// existing bank gets a better prompt. Operators run it from the command
// line (adventure-table memories rewrite / ab).
func (s *Service) ReplayMemories(ctx context.Context, adventureID int64, framing string, save bool, progress func(done, total int)) ([]MemoryReplay, error) {
	adv, err := s.store.FindAdventure(ctx, adventureID)
	if err != nil {
		return nil, err
	}
	settings, err := s.loadSettings(ctx, s.store, adv.UserID)
	if err != nil {
		return nil, err
	}
	ls, err := s.llmSettings(settings)
	if err != nil {
		return nil, err
	}
	mems, err := s.store.AdventureMemories(ctx, adventureID, models.MemoryBlock)
	if err != nil {
		return nil, err
	}
	b := &bank{s: s, adv: adv, settings: settings, llm: ls}
	out := []MemoryReplay{}
	for i, m := range mems {
		br, err := s.store.FindBranch(ctx, adventureID, m.BranchID)
		if err != nil {
			return out, err
		}
		b.h = head{adv: adv, branch: br, line: lineOf(br, m.Depth)}
		rows, err := lineFrom(ctx, s.store, b.h.line, m.FromDepth)
		if err != nil {
			return out, err
		}
		if len(rows) == 0 {
			continue
		}
		cards, err := b.cards(ctx)
		if err != nil {
			return out, err
		}
		text, err := b.complete(ctx, memoryMessages(adv, cards, blockTurns(rows), framing), memoryOutputTokens, maxMemoryWords)
		if err != nil {
			return out, err
		}
		if save {
			if err := s.store.UpdateMemory(ctx, m.ID, map[string]any{"text": text, "stale": false, "embedding": nil,
				"embedding_model": "", "updated_at": s.now()}); err != nil {
				return out, err
			}
		}
		out = append(out, MemoryReplay{ID: m.ID, BranchID: m.BranchID, FromDepth: m.FromDepth, Depth: m.Depth, Stored: m.Text, Replayed: text})
		if progress != nil {
			progress(i+1, len(mems))
		}
	}
	if save {
		if err := s.store.EnqueueMemoryJob(ctx, adventureID, s.now().UTC()); err != nil {
			return out, err
		}
	}
	return out, nil
}
