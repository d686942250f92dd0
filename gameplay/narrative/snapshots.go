package narrative

import (
	"bytes"
	"compress/zlib"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/adventure-table/adventure-table/models"
)

// A turn's prompt snapshot (what Insights shows) is stored compressed, and
// its first byte says how. Consecutive prompts of a line share most of their
// text (the fixed sections, and the history moved on by one turn), so a
// snapshot is compressed against the one before it on its line: zstd with
// that snapshot's JSON as a raw dictionary, about 100× on prose where zlib on
// its own gets 3×. Every keyframeEvery turns, or whenever the one before is
// not at hand, a keyframe stands alone, so a read decodes a bounded chain.
const (
	// snapshotZlib is the format before version 37: a zlib stream, whose
	// header's first byte is 0x78. Still read; `snapshots recompress`
	// converts it.
	snapshotZlib byte = 0x78
	// snapshotKeyframe is zstd of the JSON.
	snapshotKeyframe byte = 0x01
	// snapshotDelta is zstd of the JSON with the base turn's snapshot JSON
	// (actions.snapshot_base_id) as a raw dictionary.
	snapshotDelta byte = 0x02
)

// keyframeEvery bounds a delta chain: a read decodes at most this many
// frames (each about 0.2 ms), and a keyframe costs about 30 deltas' bytes.
const keyframeEvery = 16

// maxSnapshotBytes bounds what one snapshot decodes to.
const maxSnapshotBytes = 64 << 20

// errSnapshotGone says a delta's base snapshot is gone (retention dropped it
// while a turn was being written against it): the turn's prompt is treated
// as expired.
var errSnapshotGone = errors.New("the snapshot's base is gone")

// snapshotCodec packs and unpacks snapshots and remembers the newest ones
// this process wrote or read, so the next turn's delta needs no read.
type snapshotCodec struct {
	encoders sync.Pool // *zstd.Encoder
	decoders sync.Pool // *zstd.Decoder
	recent   recentSnapshots
}

// snapshotOf is a snapshot's JSON with its place in its chain: 0 for a
// keyframe, n for the n-th delta after one.
type snapshotOf struct {
	raw   []byte
	chain int
}

// packed is a snapshot ready to store.
type packed struct {
	data   []byte
	baseID *int64 // the turn it is a delta against, nil for a keyframe
	chain  int
}

func newSnapshotCodec() *snapshotCodec {
	c := &snapshotCodec{recent: recentSnapshots{limit: 32 << 20, items: map[int64]*list.Element{}, order: list.New()}}
	c.encoders.New = func() any {
		// A 1 MB window holds a prompt and its dictionary; a smaller
		// encoder state is set up 3× faster per turn than the default.
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true), zstd.WithEncoderCRC(true))
		if err != nil {
			panic(err) // only invalid options fail
		}
		return e
	}
	c.decoders.New = func() any {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxSnapshotBytes))
		if err != nil {
			panic(err)
		}
		return d
	}
	return c
}

// pack compresses raw against base (the snapshot before it on its line,
// when at hand and its chain is not full), or as a keyframe.
func (c *snapshotCodec) pack(raw []byte, baseID int64, base *snapshotOf) packed {
	e := c.encoders.Get().(*zstd.Encoder)
	defer c.encoders.Put(e)
	if base != nil && base.chain+1 < keyframeEvery {
		if err := e.ResetWithOptions(nil, zstd.WithEncoderDictRaw(0, base.raw)); err == nil {
			id := baseID
			return packed{data: e.EncodeAll(raw, []byte{snapshotDelta}), baseID: &id, chain: base.chain + 1}
		}
	}
	_ = e.ResetWithOptions(nil, zstd.WithEncoderDictDelete())
	return packed{data: e.EncodeAll(raw, []byte{snapshotKeyframe})}
}

// unpack decodes a chain as SnapshotChain returns it (the turn first, its
// keyframe last). A link this process remembers ends the walk early.
func (c *snapshotCodec) unpack(links []models.SnapshotLink) ([]byte, error) {
	start := len(links) - 1
	var raw []byte
	for i, l := range links {
		if s, ok := c.recent.get(l.ID); ok {
			start, raw = i-1, s.raw
			break
		}
	}
	if raw == nil {
		last := links[start]
		switch {
		case last.PromptSnapshot == nil:
			return nil, errSnapshotGone
		case len(last.PromptSnapshot) > 0 && last.PromptSnapshot[0] == snapshotDelta:
			return nil, fmt.Errorf("turn %d: a delta chain longer than %d links", links[0].ID, len(links))
		}
		var err error
		if raw, err = c.decodeFrame(last.PromptSnapshot, nil); err != nil {
			return nil, fmt.Errorf("turn %d: %w", last.ID, err)
		}
		start--
	}
	for i := start; i >= 0; i-- {
		var err error
		if raw, err = c.decodeFrame(links[i].PromptSnapshot, raw); err != nil {
			return nil, fmt.Errorf("turn %d: %w", links[i].ID, err)
		}
	}
	return raw, nil
}

// decodeFrame decodes one stored snapshot; base is the JSON a delta was
// compressed against.
func (c *snapshotCodec) decodeFrame(data, base []byte) ([]byte, error) {
	if len(data) == 0 {
		return nil, errors.New("empty snapshot")
	}
	switch data[0] {
	case snapshotZlib:
		r, err := zlib.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return io.ReadAll(io.LimitReader(r, maxSnapshotBytes))
	case snapshotKeyframe, snapshotDelta:
		d := c.decoders.Get().(*zstd.Decoder)
		defer c.decoders.Put(d)
		opt := zstd.WithDecoderDictDelete(0)
		if data[0] == snapshotDelta {
			if base == nil {
				return nil, errors.New("a delta without its base")
			}
			opt = zstd.WithDecoderDictRaw(0, base)
		}
		if err := d.ResetWithOptions(nil, opt); err != nil {
			return nil, err
		}
		return d.DecodeAll(data[1:], nil)
	}
	return nil, fmt.Errorf("unknown snapshot format %#x", data[0])
}

// load reads and decodes a turn's snapshot JSON.
func (c *snapshotCodec) load(ctx context.Context, store *models.Store, actionID int64) ([]byte, error) {
	if s, ok := c.recent.get(actionID); ok {
		return s.raw, nil
	}
	links, err := store.SnapshotChain(ctx, actionID)
	if err != nil {
		return nil, err
	}
	if links[0].PromptSnapshot == nil {
		return nil, errSnapshotGone
	}
	return c.unpack(links)
}

// readSnapshot decodes the prompt snapshot stored with a narration.
func (s *Service) readSnapshot(ctx context.Context, actionID int64) (snapshot, error) {
	data, err := s.snapshots.load(ctx, s.store, actionID)
	if err != nil {
		return snapshot{}, err
	}
	var snap snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return snapshot{}, fmt.Errorf("prompt snapshot of action %d: %w", actionID, err)
	}
	return snap, nil
}

// releaseSnapshots makes the snapshots of ids safe to drop: every other
// turn whose snapshot is a delta against one of them (or, through them,
// leans on one) is stored again as a keyframe first, in tx. Turns in
// alsoGoing are going too and are left alone.
func (s *Service) releaseSnapshots(ctx context.Context, tx *models.Store, ids []int64, alsoGoing func(int64) bool) error {
	deps, err := tx.SnapshotDependents(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range deps {
		if alsoGoing != nil && alsoGoing(id) {
			continue
		}
		links, err := tx.SnapshotChain(ctx, id)
		if err != nil {
			return err
		}
		raw, err := s.snapshots.unpack(links)
		if errors.Is(err, errSnapshotGone) {
			continue // nothing left to keep
		} else if err != nil {
			return err
		}
		if err := tx.SetSnapshot(ctx, id, s.snapshots.pack(raw, 0, nil).data, nil); err != nil {
			return err
		}
		s.snapshots.recent.drop(id) // its chain position changed
	}
	for _, id := range ids {
		s.snapshots.recent.drop(id)
	}
	return nil
}

// expireSnapshots drops an adventure's snapshots beyond its retention,
// keeping every kept snapshot readable, a batch per transaction.
func (s *Service) expireSnapshots(ctx context.Context, adventureID int64, keepNewest int, olderThan time.Time) (int64, error) {
	ids, err := s.store.ExpiringSnapshots(ctx, adventureID, keepNewest, olderThan)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	going := func(id int64) bool { _, found := slices.BinarySearch(ids, id); return found }
	var dropped int64
	for batch := range slices.Chunk(ids, 500) {
		err := s.store.Tx(ctx, func(tx *models.Store) error {
			if err := s.releaseSnapshots(ctx, tx, batch, going); err != nil {
				return err
			}
			n, err := tx.DropSnapshots(ctx, batch)
			dropped += n
			return err
		})
		if err != nil {
			return dropped, err
		}
	}
	return dropped, nil
}

// recentSnapshots is an LRU of decoded snapshots by turn, bounded in bytes.
// It holds only what was committed (written after its transaction, or read),
// and drops what is deleted or re-stored.
type recentSnapshots struct {
	mu    sync.Mutex
	limit int
	size  int
	items map[int64]*list.Element
	order *list.List // front = most recently used
}

type recentSnapshot struct {
	id int64
	snapshotOf
}

func (r *recentSnapshots) get(id int64) (snapshotOf, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.items[id]; ok {
		r.order.MoveToFront(e)
		return e.Value.(*recentSnapshot).snapshotOf, true
	}
	return snapshotOf{}, false
}

func (r *recentSnapshots) put(id int64, s snapshotOf) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(s.raw) > r.limit/4 {
		return
	}
	r.dropLocked(id)
	r.items[id] = r.order.PushFront(&recentSnapshot{id: id, snapshotOf: s})
	r.size += len(s.raw)
	for r.size > r.limit {
		r.dropLocked(r.order.Back().Value.(*recentSnapshot).id)
	}
}

func (r *recentSnapshots) drop(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked(id)
}

func (r *recentSnapshots) dropLocked(id int64) {
	if e, ok := r.items[id]; ok {
		r.size -= len(e.Value.(*recentSnapshot).raw)
		r.order.Remove(e)
		delete(r.items, id)
	}
}
