package narrative

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/recall"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// maxMemoryRunes bounds a memory the player writes or edits.
const maxMemoryRunes = 1000

// recalled is what the bank gives one prompt.
type recalled struct {
	summary string
	chosen  []InsightMemory // in story order
}

func (r recalled) texts() []string {
	out := make([]string, len(r.chosen))
	for i, m := range r.chosen {
		out[i] = m.Text
	}
	return out
}

func (r recalled) ids() []int64 {
	out := make([]int64, len(r.chosen))
	for i, m := range r.chosen {
		out[i] = m.ID
	}
	return out
}

// recall picks the memories and the running summary for a prompt on the
// head line (seed §2.6): the newest turns (without the take being retried)
// are the query; pinned memories count toward top-K; with an embedding
// model set, the query is embedded and memories are scored by cosine
// (vectors of another model score 0), otherwise, or when the embedding call
// fails, by the built-in lexical scorer. A memory below the minimum score is
// not injected, so a bank with nothing relevant adds nothing. The turn
// never waits for summarization: this reads only what the worker wrote.
func (s *Service) recall(ctx context.Context, h head, settings models.ProviderSetting, ls llm.Settings, skip []int64) (recalled, error) {
	var out recalled
	bank, err := s.lineBank(ctx, h, settings.EmbeddingModel)
	if err != nil || bank == nil {
		return out, err
	}
	out.summary = bank.summary
	if len(bank.depth) == 0 {
		return out, nil
	}
	rows, err := s.store.LineTail(ctx, models.LineQuery{Line: h.line, SkipIDs: skip, Limit: queryTurns, StoryOnly: true})
	if err != nil {
		return out, err
	}
	var parts []string
	for i := len(rows) - 1; i >= 0; i-- {
		parts = append(parts, storyLine(rows[i].Kind, rows[i].Mode, rows[i].Text))
	}
	q := recall.Query{Text: strings.Join(parts, "\n")}
	if settings.EmbeddingModel != "" {
		q.Vector = s.embedQuery(ctx, ls, settings.EmbeddingModel, q.Text)
	}
	for _, p := range bank.index.Select(q, recall.Options{K: cmpPositive(settings.MemoryTopK, DefaultMemoryTopK)}) {
		out.chosen = append(out.chosen, InsightMemory{ID: p.ID, Text: bank.text[p.ID], Scorer: p.Scorer, Score: p.Score})
	}
	slices.SortFunc(out.chosen, func(a, b InsightMemory) int {
		return cmp.Or(cmp.Compare(bank.depth[a.ID], bank.depth[b.ID]), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// lineBank is the recall index of a line's remembered memories. It is
// cached per adventure and checked against the bank's fingerprint (one
// aggregate query), so a turn does not read and tokenize the whole bank
// again while nothing in it changed: at 10,000 memories reading the rows
// is most of a turn's cost.
func (s *Service) lineBank(ctx context.Context, h head, model string) (*cachedBank, error) {
	q := models.MemoryQuery{AdventureID: h.adv.ID, Line: h.line, Remembered: true}
	fp, err := s.store.LineMemoryFingerprint(ctx, q)
	if err != nil || fp.Count == 0 {
		return nil, err
	}
	key := fmt.Sprintf("%v|%s", h.line, model)
	if b := s.banks.get(h.adv.ID, key, fp); b != nil {
		return b, nil
	}
	mems, err := s.store.LineMemories(ctx, q)
	if err != nil {
		return nil, err
	}
	b := &cachedBank{key: key, fp: fp, depth: map[int64]int{}, text: map[int64]string{}}
	var docs []recall.Doc
	for _, m := range mems {
		if m.Kind == models.MemorySummary {
			b.summary = m.Text // story order: the deepest wins
			continue
		}
		b.depth[m.ID], b.text[m.ID] = m.Depth, m.Text
		doc := recall.Doc{ID: m.ID, Text: m.Text, Pinned: m.Pinned}
		if model != "" && m.EmbeddingModel == model {
			doc.Vector = decodeVector(m.Embedding)
		}
		docs = append(docs, doc)
	}
	b.index = recall.NewIndex(docs)
	s.banks.put(h.adv.ID, b)
	return b, nil
}

// cachedBank is a line's bank prepared for recall.
type cachedBank struct {
	key     string
	fp      models.MemoryFingerprint
	summary string
	index   *recall.Index
	depth   map[int64]int
	text    map[int64]string
}

// bankCache holds the prepared banks of the adventures played lately, one
// line each, evicting the least recently used past maxCachedBanks.
type bankCache struct {
	mu      sync.Mutex
	entries map[int64]*cachedBank
	order   []int64 // least recently used first
}

const maxCachedBanks = 64

func (c *bankCache) get(adventureID int64, key string, fp models.MemoryFingerprint) *cachedBank {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.entries[adventureID]
	if b == nil || b.key != key || b.fp != fp {
		return nil
	}
	c.touch(adventureID)
	return b
}

func (c *bankCache) put(adventureID int64, b *cachedBank) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[int64]*cachedBank{}
	}
	c.entries[adventureID] = b
	c.touch(adventureID)
	if len(c.order) > maxCachedBanks {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *bankCache) touch(adventureID int64) {
	c.order = slices.DeleteFunc(c.order, func(id int64) bool { return id == adventureID })
	c.order = append(c.order, adventureID)
}

// embedQuery embeds the retrieval query, or returns nil (lexical recall)
// when the endpoint fails or is slow: memory is best-effort and never
// fails a turn.
func (s *Service) embedQuery(ctx context.Context, ls llm.Settings, model, text string) []float32 {
	ctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	ls.Model = model
	vecs, err := s.provider.Embed(ctx, ls, []string{text})
	if err != nil || len(vecs) != 1 {
		s.log.Warn("memory query embedding failed; recalling lexically", "error", err)
		return nil
	}
	return vecs[0]
}

// MemoryView is one memory of the bank as the screen shows it.
type MemoryView struct {
	ID        int64  `json:"id"`
	Kind      string `json:"kind" jsonschema:"block (written by the bank), note (written by hand) or summary"`
	Text      string `json:"text"`
	BranchID  int64  `json:"branch_id"`
	Depth     int    `json:"depth" jsonschema:"the node it hangs off"`
	FromDepth int    `json:"from_depth" jsonschema:"the first node its block covers"`
	Pinned    bool   `json:"pinned"`
	Forgotten bool   `json:"forgotten"`
	Stale     bool   `json:"stale" jsonschema:"its turns changed; the next cadence rewrites it"`
	Uses      int    `json:"uses"`
	// UsedLastTurn says the newest narration's prompt carried it.
	UsedLastTurn bool      `json:"used_last_turn"`
	Embedded     bool      `json:"embedded" jsonschema:"has a vector from the current embedding model"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// MemoryJobView is the state of an adventure's background memory work.
type MemoryJobView struct {
	Pending   bool       `json:"pending" jsonschema:"work is queued or running"`
	LastError string     `json:"last_error" jsonschema:"why the last run failed; empty after a success"`
	LastRunAt *time.Time `json:"last_run_at"`
}

// MemoryBank is the memory bank of the line being read.
type MemoryBank struct {
	// Memories are the blocks and notes on the line, in story order,
	// forgotten ones included.
	Memories []MemoryView `json:"memories"`
	// Summary is the line's running summary, when one was written.
	Summary *MemoryView `json:"summary"`
	// Scorer is what chooses memories now: "bm25" or "embedding".
	Scorer   string        `json:"scorer" jsonschema:"bm25 or embedding"`
	TopK     int           `json:"top_k"`
	Capacity int           `json:"capacity"`
	Job      MemoryJobView `json:"job"`
}

// MemoryInput is a memory the player writes.
type MemoryInput struct {
	Text   string `json:"text" jsonschema:"1 to 1000 characters"`
	Pinned bool   `json:"pinned"`
}

// MemoryChange edits a memory; nil fields are kept.
type MemoryChange struct {
	Text      *string `json:"text,omitempty" jsonschema:"1 to 1000 characters"`
	Pinned    *bool   `json:"pinned,omitempty"`
	Forgotten *bool   `json:"forgotten,omitempty"`
}

func memoryView(m models.Memory, lastNarration int64, model string) MemoryView {
	return MemoryView{ID: m.ID, Kind: m.Kind, Text: m.Text, BranchID: m.BranchID, Depth: m.Depth, FromDepth: m.FromDepth,
		Pinned: m.Pinned, Forgotten: m.Forgotten, Stale: m.Stale, Uses: m.Uses,
		UsedLastTurn: lastNarration != 0 && m.LastUsedActionID != nil && *m.LastUsedActionID == lastNarration,
		Embedded:     model != "" && m.EmbeddingModel == model, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

// GetMemoryBank returns the memory bank of the line the player is reading.
func (s *Service) GetMemoryBank(ctx context.Context, userID, adventureID int64) (MemoryBank, error) {
	h, err := ownHead(ctx, s.store, userID, adventureID, false)
	if err != nil {
		return MemoryBank{}, err
	}
	settings, err := s.loadSettings(ctx, s.store, userID)
	if err != nil {
		return MemoryBank{}, err
	}
	mems, err := s.store.LineMemories(ctx, models.MemoryQuery{AdventureID: adventureID, Line: h.line, NoVectors: true})
	if err != nil {
		return MemoryBank{}, err
	}
	rows, err := s.store.LineTail(ctx, models.LineQuery{Line: h.line, Limit: 2, TextOnly: true})
	if err != nil {
		return MemoryBank{}, err
	}
	var lastNarration int64
	for _, r := range rows {
		if r.Kind == models.ActionNarration && lastNarration == 0 {
			lastNarration = r.ID
		}
	}
	out := MemoryBank{Memories: []MemoryView{}, Scorer: recall.ScorerLexical,
		TopK: cmpPositive(settings.MemoryTopK, DefaultMemoryTopK), Capacity: cmpPositive(settings.MemoryCapacity, DefaultMemoryCapacity)}
	if settings.EmbeddingModel != "" {
		out.Scorer = recall.ScorerEmbedding
	}
	for _, m := range mems {
		v := memoryView(m, lastNarration, settings.EmbeddingModel)
		if m.Kind == models.MemorySummary {
			out.Summary = &v
			continue
		}
		out.Memories = append(out.Memories, v)
	}
	job, err := s.store.FindMemoryJob(ctx, adventureID)
	if job != nil {
		out.Job = MemoryJobView{Pending: job.DueAt != nil || job.ClaimedBy != "", LastError: job.LastError, LastRunAt: job.LastRunAt}
	}
	return out, err
}

func checkMemoryText(text string) error {
	bad := apperr.E(apperr.MemoryInvalid, "A memory is 1 to %d characters of plain text.", maxMemoryRunes)
	switch {
	case !models.StorableText(text):
		bad.WithField("text", models.UnstorableTextProblem)
	case strings.TrimSpace(text) == "":
		bad.WithField("text", "is required")
	case utf8.RuneCountInString(text) > maxMemoryRunes:
		bad.WithField("text", "is too long")
	default:
		return nil
	}
	return bad
}

// AddMemory stores a memory the player writes. It hangs off the node the
// player is reading, like any memory: a retry of that node withdraws it
// (the seed's rule: a memory anchored to a node goes with the node), except
// at the opening, which every line reads.
func (s *Service) AddMemory(ctx context.Context, userID, adventureID int64, in MemoryInput) (MemoryView, error) {
	in.Text = strings.TrimSpace(in.Text)
	if err := checkMemoryText(in.Text); err != nil {
		return MemoryView{}, err
	}
	var m models.Memory
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		h, tip, err := ownTip(ctx, tx, userID, adventureID, true)
		if err != nil {
			return err
		}
		now := s.now()
		m = models.Memory{AdventureID: adventureID, BranchID: tip.BranchID, Depth: tip.Depth, FromDepth: tip.Depth, Kind: models.MemoryNote,
			Text: in.Text, Pinned: in.Pinned, CreatedAt: now, UpdatedAt: now}
		if err := tx.CreateMemory(ctx, &m); err != nil {
			return err
		}
		return s.enqueueMemory(ctx, tx, h.adv.ID) // its embedding
	})
	if err != nil {
		return MemoryView{}, err
	}
	s.wakeMemory()
	return memoryView(m, 0, ""), nil
}

// ChangeMemory pins, forgets, un-forgets or rewrites one memory of the
// caller's adventure. A rewritten memory loses its vector until the worker
// embeds the new text.
func (s *Service) ChangeMemory(ctx context.Context, userID, adventureID, memoryID int64, in MemoryChange) (MemoryView, error) {
	fields := map[string]any{}
	if in.Text != nil {
		text := strings.TrimSpace(*in.Text)
		if err := checkMemoryText(text); err != nil {
			return MemoryView{}, err
		}
		fields["text"], fields["stale"], fields["embedding"], fields["embedding_model"] = text, false, nil, ""
	}
	if in.Pinned != nil {
		fields["pinned"] = *in.Pinned
	}
	if in.Forgotten != nil {
		fields["forgotten"] = *in.Forgotten
	}
	var m *models.Memory
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		if _, err := ownAdventure(ctx, tx, userID, adventureID, true); err != nil {
			return err
		}
		found, err := tx.FindMemory(ctx, memoryID)
		if err == nil && found.AdventureID != adventureID {
			err = apperr.E(apperr.NotFound, "The memory does not exist.")
		}
		if err != nil {
			return err
		}
		if found.Kind == models.MemorySummary && (in.Pinned != nil || in.Forgotten != nil) {
			return apperr.E(apperr.MemoryInvalid, "The running summary is always in the prompt; it can be edited, not pinned or forgotten.")
		}
		if len(fields) == 0 {
			m = found
			return nil
		}
		fields["updated_at"] = s.now()
		if err := tx.UpdateMemory(ctx, memoryID, fields); err != nil {
			return err
		}
		if in.Text != nil {
			if err := s.enqueueMemory(ctx, tx, adventureID); err != nil {
				return err
			}
		}
		m, err = tx.FindMemory(ctx, memoryID)
		return err
	})
	if err != nil {
		return MemoryView{}, err
	}
	s.wakeMemory()
	return memoryView(*m, 0, ""), nil
}
