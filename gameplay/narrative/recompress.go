package narrative

import (
	"cmp"
	"container/list"
	"context"
	"slices"

	"github.com/adventure-table/adventure-table/models"
)

// RecompressReport is what `snapshots recompress` did.
type RecompressReport struct {
	Adventures  int
	Snapshots   int64
	BytesBefore int64
	BytesAfter  int64
}

// RecompressProgress is reported after each batch.
type RecompressProgress struct {
	Done, Total int64
	AdventureID int64
}

// recompressBatch is how many snapshots one transaction converts: a crash
// loses at most one batch's work, and a rerun picks up what is left.
var recompressBatch = 200

// RecompressSnapshots converts the snapshots stored before version 37
// (zlib, each on its own) to the chained format, adventure by adventure in
// story order: each becomes a delta against the snapshot before it on its
// line, a keyframe every keyframeEvery. Every converted snapshot decodes to
// the same JSON; a rerun converts only what is still old.
func (s *Service) RecompressSnapshots(ctx context.Context, progress func(RecompressProgress)) (RecompressReport, error) {
	var rep RecompressReport
	total, _, err := s.store.SnapshotFormatCount(ctx, snapshotZlib)
	if err != nil || total == 0 {
		return rep, err
	}
	advs, err := s.store.AdventuresWithSnapshotFormat(ctx, snapshotZlib)
	if err != nil {
		return rep, err
	}
	for _, adv := range advs {
		if err := s.recompressAdventure(ctx, adv, &rep, func() {
			if progress != nil {
				progress(RecompressProgress{Done: rep.Snapshots, Total: total, AdventureID: adv})
			}
		}); err != nil {
			return rep, err
		}
		rep.Adventures++
	}
	return rep, nil
}

func (s *Service) recompressAdventure(ctx context.Context, adventureID int64, rep *RecompressReport, batchDone func()) error {
	nodes, err := s.store.SnapshotNodes(ctx, adventureID, snapshotZlib)
	if err != nil {
		return err
	}
	byID := make(map[int64]models.SnapshotNode, len(nodes))
	var old []int64
	for _, n := range nodes {
		byID[n.ID] = n
		if n.InFormat {
			old = append(old, n.ID)
		}
	}
	// base is the nearest ancestor with a snapshot: the one before on its line.
	base := func(id int64) (int64, bool) {
		for n := byID[id]; n.ParentID != nil; {
			n = byID[*n.ParentID]
			if n.HasSnapshot {
				return n.ID, true
			}
		}
		return 0, false
	}
	// done remembers this run's converted snapshots (the bases of the next).
	done := recentSnapshots{limit: 64 << 20, items: map[int64]*list.Element{}, order: list.New()}
	for batch := range slices.Chunk(old, cmp.Or(s.recompressBatch, recompressBatch)) {
		err := s.store.Tx(ctx, func(tx *models.Store) error {
			links, err := tx.FindActionPrompts(ctx, batch)
			if err != nil {
				return err
			}
			for _, l := range links {
				if len(l.PromptSnapshot) == 0 || l.PromptSnapshot[0] != snapshotZlib {
					continue // converted by someone else meanwhile
				}
				raw, err := s.snapshots.decodeFrame(l.PromptSnapshot, nil)
				if err != nil {
					return err
				}
				var p packed
				if id, ok := base(l.ID); ok {
					if b, ok := done.get(id); ok {
						p = s.snapshots.pack(raw, id, &b)
					}
				}
				if p.data == nil {
					p = s.snapshots.pack(raw, 0, nil)
				}
				if err := tx.SetSnapshot(ctx, l.ID, p.data, p.baseID); err != nil {
					return err
				}
				done.put(l.ID, snapshotOf{raw: raw, chain: p.chain})
				rep.Snapshots++
				rep.BytesBefore += int64(len(l.PromptSnapshot))
				rep.BytesAfter += int64(len(p.data))
			}
			return s.failpoint("recompress.after_batch")
		})
		if err != nil {
			return err
		}
		batchDone()
	}
	return nil
}
