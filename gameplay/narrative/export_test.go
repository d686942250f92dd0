package narrative

import (
	"bytes"
	"compress/zlib"
	"container/list"
	"context"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/models"
)

// SetFailpoint lets tests inject a failure at a named point.
func (s *Service) SetFailpoint(f func(point string) error) { s.fail = f }

// SetRecompressBatch changes how many snapshots one transaction of
// RecompressSnapshots converts.
func (s *Service) SetRecompressBatch(n int) { s.recompressBatch = n }

// SetStaleTurn shortens how long a turn claim survives a crashed process.
func (s *Service) SetStaleTurn(d time.Duration) { s.staleTurn = d }

// SetTurnHeartbeat changes how often a running turn renews its claim.
func (s *Service) SetTurnHeartbeat(d time.Duration) { s.turnHeartbeat = d }

// Crash stops the turn's heartbeat without freeing its claim, as when the
// process dies; the turn must not be run afterwards.
func (t *Turn) Crash() { t.claim.stopHeartbeat() }

// BuildAtTip builds the context a turn at the head would send, without
// claiming the turn or calling a model (for benchmarks), and returns the
// compressed snapshot size with the raw one.
func (s *Service) BuildAtTip(ctx context.Context, userID, adventureID int64) (total, raw, packed int, err error) {
	b, err := s.buildAtTip(ctx, userID, adventureID)
	if err != nil {
		return 0, 0, 0, err
	}
	return b.result.TotalTokens, len(b.snapshotRaw), len(b.snapshot.data), nil
}

// PromptBytesAtTip builds the context a turn at the head would send and
// returns the bytes of the prompt's messages. Only the build runs under
// ctx (a started turn has found its parent already).
func (s *Service) PromptBytesAtTip(ctx context.Context, userID, adventureID int64) (int, error) {
	_, tip, err := ownTip(context.Background(), s.store, userID, adventureID, false)
	if err != nil {
		return 0, err
	}
	t := &Turn{s: s, userID: userID, adventureID: adventureID, parentID: tip.ID, depth: tip.Depth + 1}
	b, err := t.build(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range b.messages {
		n += len(m.Content)
	}
	return n, nil
}

func (s *Service) buildAtTip(ctx context.Context, userID, adventureID int64) (*built, error) {
	_, tip, err := ownTip(ctx, s.store, userID, adventureID, false)
	if err != nil {
		return nil, err
	}
	t := &Turn{s: s, userID: userID, adventureID: adventureID, parentID: tip.ID, depth: tip.Depth + 1}
	return t.build(ctx)
}

// AppendTurns writes n turns (a player action and a narration each) at the
// head directly, for benchmarks that need long stories fast.
func (s *Service) AppendTurns(ctx context.Context, userID, adventureID int64, n int, text func(i int) (player, narration string)) error {
	return s.store.Tx(ctx, func(tx *models.Store) error {
		h, tip, err := ownTip(ctx, tx, userID, adventureID, true)
		if err != nil {
			return err
		}
		parent, depth := tip.ID, tip.Depth
		for i := range n {
			p, nar := text(i)
			for _, node := range []*models.Action{
				{Kind: models.ActionPlayer, Mode: ModeDo, Text: p, TokenCount: countTokens(playerLine(ModeDo, p))},
				{Kind: models.ActionNarration, Text: nar, TokenCount: countTokens(nar)},
			} {
				depth++
				node.AdventureID, node.BranchID, node.Depth, node.Live, node.ParentID = adventureID, h.branch.ID, depth, true, &parent
				node.WorldStateAfter, node.ScriptStateAfter, node.Outcomes, node.CreatedAt = tip.WorldStateAfter, "{}", "[]", s.now()
				if err := tx.CreateAction(ctx, node); err != nil {
					return err
				}
				parent = node.ID
			}
		}
		return s.setHead(ctx, tx, adventureID, h.branch.ID, depth)
	})
}

// SnapshotAtTip returns the uncompressed snapshot a turn at the head would store.
func (s *Service) SnapshotAtTip(tb testing.TB, adventureID, userID int64) []byte {
	b, err := s.buildAtTip(context.Background(), userID, adventureID)
	if err != nil {
		tb.Fatal(err)
	}
	return b.snapshotRaw
}

// MakeSnapshotsOld stores every snapshot of an adventure as it was stored
// before version 37 (zlib of the JSON, each on its own).
func (s *Service) MakeSnapshotsOld(tb testing.TB, adventureID int64) int {
	ctx := context.Background()
	nodes, err := s.store.SnapshotNodes(ctx, adventureID, snapshotZlib)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, node := range nodes {
		if !node.HasSnapshot {
			continue
		}
		raw, err := s.snapshots.load(ctx, s.store, node.ID)
		if err != nil {
			tb.Fatal(err)
		}
		var z bytes.Buffer
		w, _ := zlib.NewWriterLevel(&z, 6)
		_, _ = w.Write(raw)
		_ = w.Close()
		if err := s.store.SetSnapshot(ctx, node.ID, z.Bytes(), nil); err != nil {
			tb.Fatal(err)
		}
		n++
	}
	s.snapshots.recent = recentSnapshots{limit: s.snapshots.recent.limit, items: map[int64]*list.Element{}, order: list.New()}
	return n
}
