package narrative

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The story is a tree (seed §2.7). A node sits at (branch, depth); its takes
// are the children of its parent; at most one take is live per coordinate.
// A branch stores no story above its fork: its lineage lists the ancestor
// branches and how deep it reads each, so a line is one query of OR-clauses.
//
// Invariants every change below keeps:
//   - the head (head_branch_id, head_depth) is the tip of its branch: no live
//     node of that branch is deeper;
//   - a non-live node has no children on its own branch;
//   - a node another branch borrows (a child branch forked at its depth or
//     deeper) is never flipped, moved or deleted.

// pageSize is how many nodes a page load returns.
const pageSize = 60

func countTokens(text string) int { return prompt.Count(text) }

// lineage decodes a branch's cached ancestry.
func lineage(b *models.Branch) []models.LineSegment {
	var pairs [][2]int64
	_ = json.Unmarshal([]byte(b.Lineage), &pairs)
	out := make([]models.LineSegment, 0, len(pairs)+1)
	for _, p := range pairs {
		out = append(out, models.LineSegment{BranchID: p[0], MaxDepth: int(p[1])})
	}
	return out
}

// lineOf is the line of branch b read up to depth.
func lineOf(b *models.Branch, depth int) []models.LineSegment {
	return append(lineage(b), models.LineSegment{BranchID: b.ID, MaxDepth: depth})
}

// ownAdventure loads an adventure the user owns; another user's is not_found.
func ownAdventure(ctx context.Context, store *models.Store, userID, id int64, lock bool) (*models.Adventure, error) {
	load := store.FindAdventure
	if lock {
		load = store.LockAdventure
	}
	adv, err := load(ctx, id)
	if err != nil {
		return nil, err
	}
	if adv.UserID != userID {
		return nil, apperr.E(apperr.NotFound, "The adventure does not exist.")
	}
	return adv, nil
}

// head is an adventure's current position: its branch and line.
type head struct {
	adv    *models.Adventure
	branch *models.Branch
	line   []models.LineSegment
}

func loadHead(ctx context.Context, store *models.Store, adv *models.Adventure) (head, error) {
	b, err := store.FindBranch(ctx, adv.ID, adv.HeadBranchID)
	if err != nil {
		return head{}, err
	}
	return head{adv: adv, branch: b, line: lineOf(b, adv.HeadDepth)}, nil
}

// ownHead loads an adventure the user owns (locked for update when lock)
// and its head.
func ownHead(ctx context.Context, store *models.Store, userID, adventureID int64, lock bool) (head, error) {
	adv, err := ownAdventure(ctx, store, userID, adventureID, lock)
	if err != nil {
		return head{}, err
	}
	return loadHead(ctx, store, adv)
}

// ownTip is ownHead with the newest node of the head line.
func ownTip(ctx context.Context, store *models.Store, userID, adventureID int64, lock bool) (head, *models.ActionRow, error) {
	h, err := ownHead(ctx, store, userID, adventureID, lock)
	if err != nil {
		return head{}, nil, err
	}
	tip, err := h.tip(ctx, store)
	return h, tip, err
}

// node returns the live node at depth on the head line, or nil.
func (h head) node(ctx context.Context, store *models.Store, depth int) (*models.ActionRow, error) {
	rows, err := store.LineTail(ctx, models.LineQuery{Line: h.line, BeforeDepth: depth + 1, Limit: 1})
	if err != nil || len(rows) == 0 || rows[0].Depth != depth {
		return nil, err
	}
	return &rows[0], nil
}

// tip returns the newest node of the head line.
func (h head) tip(ctx context.Context, store *models.Store) (*models.ActionRow, error) {
	rows, err := store.LineTail(ctx, models.LineQuery{Line: h.line, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("adventure %d: empty line", h.adv.ID)
	}
	return &rows[0], nil
}

// onLine reports whether node n is on the head line.
func (h head) onLine(n *models.ActionRow) bool {
	if !n.Live || n.AdventureID != h.adv.ID {
		return false
	}
	for _, seg := range h.line {
		if seg.BranchID == n.BranchID && n.Depth <= seg.MaxDepth {
			return true
		}
	}
	return false
}

// branchTip is the depth a branch's line ends at: its deepest live node, or
// its fork depth when it owns none yet.
func branchTip(ctx context.Context, store *models.Store, b *models.Branch) (int, error) {
	d, err := store.MaxLiveDepth(ctx, b.ID)
	if err != nil {
		return 0, err
	}
	return max(d, b.ForkDepth), nil
}

// forkLineage is the cached ancestry of a branch forked from parent at
// depth: parent's own, each read no deeper than depth, then parent itself.
func forkLineage(parent *models.Branch, depth int) string {
	var pairs [][2]int64
	for _, seg := range lineage(parent) {
		pairs = append(pairs, [2]int64{seg.BranchID, int64(min(seg.MaxDepth, depth))})
	}
	return mustJSON(append(pairs, [2]int64{parent.ID, int64(depth)}))
}

// fork creates a branch of parent that borrows parent's line up to depth.
func (s *Service) fork(ctx context.Context, store *models.Store, adventureID int64, parent *models.Branch, depth int) (*models.Branch, error) {
	branches, err := store.ListBranches(ctx, adventureID)
	if err != nil {
		return nil, err
	}
	b := &models.Branch{AdventureID: adventureID, ParentBranchID: &parent.ID, ForkDepth: depth, Lineage: forkLineage(parent, depth),
		Name: numberedBranchName(len(branches) + 1), CreatedAt: s.now()}
	return b, store.CreateBranch(ctx, b)
}

// soleTip reports whether the live node at (branch, depth) can give up its
// place to a sibling take: nothing below it on its branch and no branch
// borrowing it.
func soleTip(ctx context.Context, store *models.Store, branchID int64, depth int) (bool, error) {
	below, err := store.LiveActionAt(ctx, branchID, depth+1)
	if err != nil || below != nil {
		return false, err
	}
	borrowed, err := store.BranchBorrowed(ctx, branchID, depth)
	return !borrowed, err
}

// freeCoordinate makes (branch, depth) available to a new live take when
// that keeps the tree's invariants: the live take there (if any) becomes a
// non-live sibling when it is a sole tip, and an empty coordinate must not be
// borrowed by a child branch. It reports false, changing nothing, when the
// take has to go on a new branch instead.
func freeCoordinate(ctx context.Context, store *models.Store, branchID int64, depth int) (bool, error) {
	current, err := store.LiveActionAt(ctx, branchID, depth)
	if err != nil {
		return false, err
	}
	if current == nil {
		borrowed, err := store.BranchBorrowed(ctx, branchID, depth)
		return !borrowed, err
	}
	if ok, err := soleTip(ctx, store, branchID, depth); !ok || err != nil {
		return false, err
	}
	// The memories hanging off the take that steps aside describe it, not
	// the take replacing it.
	if err := store.WithdrawMemoriesAt(ctx, branchID, depth); err != nil {
		return false, err
	}
	return true, store.SetActionLive(ctx, current.ID, false)
}

// place stores node n at n.Depth under the head branch: on the head branch
// when the coordinate is free or held by a take that can step aside (it
// becomes a non-live sibling), otherwise on a new branch forked just above.
// It returns the branch n landed on.
func (s *Service) place(ctx context.Context, store *models.Store, h head, n *models.Action) (*models.Branch, error) {
	b := h.branch
	free := false
	var err error
	// Above its fork depth a branch reads its parent's nodes; it may not own one there.
	if n.Depth > b.ForkDepth {
		if free, err = freeCoordinate(ctx, store, b.ID, n.Depth); err != nil {
			return nil, err
		}
	}
	if !free {
		if b, err = s.fork(ctx, store, h.adv.ID, b, n.Depth-1); err != nil {
			return nil, err
		}
	}
	n.BranchID, n.Live = b.ID, true
	if err := store.CreateAction(ctx, n); err != nil {
		return nil, err
	}
	return b, nil
}

// setHead moves the head.
func (s *Service) setHead(ctx context.Context, store *models.Store, adventureID, branchID int64, depth int) error {
	return store.UpdateAdventure(ctx, adventureID, map[string]any{"head_branch_id": branchID, "head_depth": depth, "updated_at": s.now()})
}

// treeChange runs fn on the locked adventure and its head in one
// transaction, refusing while a turn is generating, then returns the page.
func (s *Service) treeChange(ctx context.Context, userID, adventureID int64, fn func(tx *models.Store, h head) error) (AdventurePage, error) {
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		h, err := s.idleHead(ctx, tx, userID, adventureID)
		if err != nil {
			return err
		}
		return fn(tx, h)
	})
	if err != nil {
		return AdventurePage{}, err
	}
	s.wakeMemory() // an edit or delete may have left memories to rewrite
	return s.GetAdventure(ctx, userID, adventureID)
}

// idleHead loads the user's adventure locked for update, and its head,
// refusing with turn_in_progress while a turn is generating: what the
// player changes by hand never races the turn that reads it.
func (s *Service) idleHead(ctx context.Context, tx *models.Store, userID, adventureID int64) (head, error) {
	h, err := ownHead(ctx, tx, userID, adventureID, true)
	if err != nil {
		return head{}, err
	}
	if s.turnRunning(h.adv) {
		return head{}, apperr.E(apperr.TurnInProgress, "A turn is being written for this adventure; wait for it to finish.")
	}
	return h, nil
}

func (s *Service) turnRunning(adv *models.Adventure) bool {
	return adv.TurnToken != "" && adv.TurnHeartbeatAt != nil && !adv.TurnHeartbeatAt.Before(s.now().Add(-s.staleTurn))
}

// SelectTake stands on a take (the pager). A take that is live on its own
// branch takes the head to that branch's tip. A non-live take swaps places
// with the live one when that one is a sole tip, and otherwise moves to a new
// branch forked just above it, borrowing everything before.
func (s *Service) SelectTake(ctx context.Context, userID, adventureID, takeID int64) (AdventurePage, error) {
	return s.treeChange(ctx, userID, adventureID, func(tx *models.Store, h head) error {
		t, err := tx.FindActionRow(ctx, takeID)
		if err != nil {
			return err
		}
		if t.AdventureID != adventureID {
			return apperr.E(apperr.NotFound, "The turn does not exist.")
		}
		b, err := tx.FindBranch(ctx, adventureID, t.BranchID)
		if err != nil {
			return err
		}
		if t.Live {
			tip, err := branchTip(ctx, tx, b)
			if err != nil {
				return err
			}
			return s.setHead(ctx, tx, adventureID, b.ID, tip)
		}
		free, err := freeCoordinate(ctx, tx, b.ID, t.Depth)
		if err != nil {
			return err
		}
		if free {
			if err := tx.SetActionLive(ctx, t.ID, true); err != nil {
				return err
			}
			return s.setHead(ctx, tx, adventureID, b.ID, t.Depth)
		}
		nb, err := s.fork(ctx, tx, adventureID, b, t.Depth-1)
		if err != nil {
			return err
		}
		if err := s.failpoint("take.after_fork"); err != nil {
			return err
		}
		if err := tx.MoveActionToBranch(ctx, t.ID, nb.ID); err != nil {
			return err
		}
		return s.setHead(ctx, tx, adventureID, nb.ID, t.Depth)
	})
}

// Fork starts a new branch whose line is the head line up to and including
// node actionID, and moves the head there. The branch copies nothing.
func (s *Service) Fork(ctx context.Context, userID, adventureID, actionID int64) (AdventurePage, error) {
	return s.treeChange(ctx, userID, adventureID, func(tx *models.Store, h head) error {
		n, err := tx.FindActionRow(ctx, actionID)
		if err != nil {
			return err
		}
		if !h.onLine(n) {
			return apperr.E(apperr.ActionNotOnLine, "Only a turn of the story you are reading can be forked.")
		}
		owner, err := tx.FindBranch(ctx, adventureID, n.BranchID)
		if err != nil {
			return err
		}
		nb, err := s.fork(ctx, tx, adventureID, owner, n.Depth)
		if err != nil {
			return err
		}
		return s.setHead(ctx, tx, adventureID, nb.ID, n.Depth)
	})
}

// SwitchBranch moves the head to the tip of a branch.
func (s *Service) SwitchBranch(ctx context.Context, userID, adventureID, branchID int64) (AdventurePage, error) {
	return s.treeChange(ctx, userID, adventureID, func(tx *models.Store, h head) error {
		b, err := tx.FindBranch(ctx, adventureID, branchID)
		if err != nil {
			return err
		}
		tip, err := branchTip(ctx, tx, b)
		if err != nil {
			return err
		}
		return s.setHead(ctx, tx, adventureID, b.ID, tip)
	})
}

// RenameBranch names a branch.
func (s *Service) RenameBranch(ctx context.Context, userID, adventureID, branchID int64, name string) (BranchView, error) {
	bad := apperr.E(apperr.InvalidRequest, "A branch name is 1 to 120 characters.")
	checkText(bad, "name", name, 120, true)
	if len(bad.Fields) > 0 {
		return BranchView{}, bad
	}
	var out BranchView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		adv, err := ownAdventure(ctx, tx, userID, adventureID, false)
		if err != nil {
			return err
		}
		b, err := tx.FindBranch(ctx, adventureID, branchID)
		if err != nil {
			return err
		}
		if err := tx.RenameBranch(ctx, b.ID, name); err != nil {
			return err
		}
		tip, err := branchTip(ctx, tx, b)
		b.Name = name
		out = branchView(models.BranchWithTip{Branch: *b, TipDepth: &tip}, adv.HeadBranchID)
		return err
	})
	return out, err
}

// The names the server gives branches: stored in English (what clients
// that do not translate show), sent with a code the web app translates.
const (
	mainBranchName   = "Main"
	branchCodeMain   = "branch.main"
	branchCodeNumber = "branch.numbered"
)

func numberedBranchName(n int) string { return fmt.Sprintf("Branch %d", n) }

var numberedBranch = regexp.MustCompile(`^Branch ([1-9][0-9]{0,8})$`)

// branchNameCode is the code of a name the server gave (the first branch's
// "Main", a fork's "Branch n"), or "" for a name the player chose.
func branchNameCode(name string, parent *int64) (string, map[string]int) {
	if name == mainBranchName && parent == nil {
		return branchCodeMain, nil
	}
	if m := numberedBranch.FindStringSubmatch(name); m != nil && parent != nil {
		n, _ := strconv.Atoi(m[1])
		return branchCodeNumber, map[string]int{"n": n}
	}
	return "", nil
}

func branchView(b models.BranchWithTip, headBranchID int64) BranchView {
	tip := b.ForkDepth
	if b.TipDepth != nil {
		tip = max(tip, *b.TipDepth)
	}
	code, params := branchNameCode(b.Name, b.ParentBranchID)
	return BranchView{ID: b.ID, Name: b.Name, NameCode: code, NameParams: params, ParentBranchID: b.ParentBranchID, ForkDepth: b.ForkDepth, TipDepth: tip,
		IsHead: b.ID == headBranchID, CreatedAt: b.CreatedAt}
}

// ListBranches returns an adventure's branches.
func (s *Service) ListBranches(ctx context.Context, userID, adventureID int64) (BranchList, error) {
	adv, err := ownAdventure(ctx, s.store, userID, adventureID, false)
	if err != nil {
		return BranchList{}, err
	}
	rows, err := s.store.ListBranches(ctx, adventureID)
	out := BranchList{Branches: make([]BranchView, len(rows))}
	for i, r := range rows {
		out.Branches[i] = branchView(r, adv.HeadBranchID)
	}
	return out, err
}

// removeTurn deletes node n with the non-live takes at its coordinate,
// re-parents its children to its parent and moves the head to the branch's
// new tip. A node another branch borrows is refused.
func (s *Service) removeNode(ctx context.Context, tx *models.Store, h head, n *models.ActionRow) error {
	if n.Kind == models.ActionOpening || n.ParentID == nil {
		return apperr.E(apperr.ActionNotEditable, "The opening cannot be deleted.")
	}
	borrowed, err := tx.BranchBorrowed(ctx, n.BranchID, n.Depth)
	if err != nil {
		return err
	}
	if borrowed {
		return apperr.E(apperr.ActionNotEditable, "Another branch continues from this turn; switch to it or delete from there.")
	}
	// The memories that describe the node: rewritten next cadence, or,
	// for the tip (nothing follows it), withdrawn with it.
	if err := staleAround(ctx, tx, h.adv.ID, n); err != nil {
		return err
	}
	below, err := tx.LiveActionAt(ctx, n.BranchID, n.Depth+1)
	if err != nil {
		return err
	}
	if below == nil {
		if err := tx.WithdrawMemoriesAt(ctx, n.BranchID, n.Depth); err != nil {
			return err
		}
	}
	if err := s.enqueueMemory(ctx, tx, h.adv.ID); err != nil {
		return err
	}
	ids, err := tx.SiblingTakesAt(ctx, n.BranchID, n.Depth)
	if err != nil {
		return err
	}
	ids = append(ids, n.ID)
	if err := tx.ReparentActions(ctx, ids, n.ParentID); err != nil {
		return err
	}
	if err := s.failpoint("remove.after_reparent"); err != nil {
		return err
	}
	// A later turn's snapshot may be a delta against a deleted one.
	if err := s.releaseSnapshots(ctx, tx, ids, nil); err != nil {
		return err
	}
	if err := s.failpoint("remove.after_release"); err != nil {
		return err
	}
	return tx.DeleteActions(ctx, ids)
}

func (s *Service) resetHeadToTip(ctx context.Context, tx *models.Store, h head) error {
	tip, err := branchTip(ctx, tx, h.branch)
	if err != nil {
		return err
	}
	return s.setHead(ctx, tx, h.adv.ID, h.branch.ID, tip)
}

// Undo removes the newest turn: the newest narration and the player action
// it answered (or the lone node at the tip). The state in force is then the
// new tip's world_state_after: undo is a restore, not a recomputation.
func (s *Service) Undo(ctx context.Context, userID, adventureID int64) (AdventurePage, error) {
	return s.treeChange(ctx, userID, adventureID, func(tx *models.Store, h head) error {
		tip, err := h.tip(ctx, tx)
		if err != nil {
			return err
		}
		if tip.Kind == models.ActionOpening {
			return apperr.E(apperr.NothingToUndo, "Only the opening is left.")
		}
		if tip.Depth <= h.branch.ForkDepth {
			return apperr.E(apperr.NothingToUndo, "This branch has no turns of its own yet; switch branches to undo earlier turns.")
		}
		if err := s.removeNode(ctx, tx, h, tip); err != nil {
			return err
		}
		if tip.Kind == models.ActionNarration && tip.ParentID != nil {
			parent, err := tx.FindActionRow(ctx, *tip.ParentID)
			if err != nil {
				return err
			}
			if parent.Kind == models.ActionPlayer && parent.BranchID == h.branch.ID && parent.Depth > h.branch.ForkDepth {
				if err := s.removeNode(ctx, tx, h, parent); err != nil {
					return err
				}
			}
		}
		return s.resetHeadToTip(ctx, tx, h)
	})
}

// DeleteAction deletes one node of the head line (with its non-live takes).
// Later nodes keep their recorded state: a snapshot is history, not derived.
func (s *Service) DeleteAction(ctx context.Context, userID, actionID int64) (AdventurePage, error) {
	n, err := s.store.FindActionRow(ctx, actionID)
	if err != nil {
		return AdventurePage{}, err
	}
	return s.treeChange(ctx, userID, n.AdventureID, func(tx *models.Store, h head) error {
		n, err := tx.FindActionRow(ctx, actionID)
		if err != nil {
			return err
		}
		if !h.onLine(n) {
			return apperr.E(apperr.ActionNotOnLine, "Only a turn of the story you are reading can be deleted.")
		}
		if err := s.removeNode(ctx, tx, h, n); err != nil {
			return err
		}
		return s.resetHeadToTip(ctx, tx, h)
	})
}

// EditAction replaces a node's text (any node of the head line).
func (s *Service) EditAction(ctx context.Context, userID, actionID int64, text string) (ActionView, error) {
	bad := apperr.E(apperr.TurnTextInvalid, "The text is not valid.")
	checkText(bad, "text", text, maxTextField, false)
	if len(bad.Fields) > 0 {
		return ActionView{}, bad
	}
	n, err := s.store.FindActionRow(ctx, actionID)
	if err != nil {
		return ActionView{}, err
	}
	var out ActionView
	_, err = s.treeChange(ctx, userID, n.AdventureID, func(tx *models.Store, h head) error {
		n, err := tx.FindActionRow(ctx, actionID)
		if err != nil {
			return err
		}
		if !h.onLine(n) {
			return apperr.E(apperr.ActionNotOnLine, "Only a turn of the story you are reading can be edited.")
		}
		if err := tx.UpdateActionText(ctx, n.ID, text, countTokens(storyLine(n.Kind, n.Mode, text))); err != nil {
			return err
		}
		if err := staleAround(ctx, tx, h.adv.ID, n); err != nil {
			return err
		}
		if err := s.enqueueMemory(ctx, tx, h.adv.ID); err != nil {
			return err
		}
		n.Text = text
		views, err := s.actionViews(ctx, tx, []models.ActionRow{*n})
		out = views[0]
		return err
	})
	return out, err
}

// actionViews renders nodes with their take pager in one query.
func (s *Service) actionViews(ctx context.Context, store *models.Store, rows []models.ActionRow) ([]ActionView, error) {
	var parents []int64
	for _, r := range rows {
		if r.ParentID != nil {
			parents = append(parents, *r.ParentID)
		}
	}
	takes, err := store.TakeIDs(ctx, parents)
	if err != nil {
		return nil, err
	}
	out := make([]ActionView, len(rows))
	for i, r := range rows {
		ti := TakeInfo{Index: 1, Count: 1, IDs: []int64{r.ID}}
		if r.ParentID != nil {
			if ids := takes[*r.ParentID]; len(ids) > 0 {
				ti = TakeInfo{Count: len(ids), IDs: ids}
				for j, id := range ids {
					if id == r.ID {
						ti.Index = j + 1
					}
				}
			}
		}
		out[i] = ActionView{ID: r.ID, Kind: r.Kind, Mode: r.Mode, Text: r.Text, Depth: r.Depth, BranchID: r.BranchID, Takes: ti,
			Outcomes: parseOutcomes(r.Outcomes), Truncated: r.Truncated, FinishReason: r.FinishReason, Stopped: r.Stopped, HasPrompt: r.HasPrompt, CreatedAt: r.CreatedAt}
	}
	return out, nil
}

func (s *Service) adventureView(adv *models.Adventure, headState string) AdventureView {
	schema := parseSchema(adv.StatSchema)
	state := parseState(headState)
	return AdventureView{ID: adv.ID, ScenarioID: adv.ScenarioID, Title: adv.Title,
		Persona:     Persona{PersonaName: adv.PersonaName, PersonaPronouns: adv.PersonaPronouns, PersonaDesc: adv.PersonaDesc},
		AuthorsNote: adv.AuthorsNote, StatSchema: schema, WorldState: state, StateLine: StateLine(schema, state),
		HeadBranchID: adv.HeadBranchID, HeadDepth: adv.HeadDepth, TurnInProgress: s.turnRunning(adv), CreatedAt: adv.CreatedAt, UpdatedAt: adv.UpdatedAt}
}

// GetAdventure loads the play screen: the adventure, its newest window of
// the head line and the take pagers, in four queries whatever the story's
// length and however many branches it has. It never reads a prompt.
func (s *Service) GetAdventure(ctx context.Context, userID, adventureID int64) (AdventurePage, error) {
	h, err := ownHead(ctx, s.store, userID, adventureID, false)
	if err != nil {
		return AdventurePage{}, err
	}
	adv := h.adv
	rows, err := s.store.LineTail(ctx, models.LineQuery{Line: h.line, Limit: pageSize + 1})
	if err != nil {
		return AdventurePage{}, err
	}
	hasMore := len(rows) > pageSize
	rows = rows[:min(len(rows), pageSize)]
	slices.Reverse(rows)
	views, err := s.actionViews(ctx, s.store, rows)
	if err != nil {
		return AdventurePage{}, err
	}
	state := "{}"
	if len(rows) > 0 {
		state = rows[len(rows)-1].WorldStateAfter
	}
	return AdventurePage{Adventure: s.adventureView(adv, state), Story: views, HasMore: hasMore}, nil
}

// GetStory returns older nodes of the head line, before depth before.
func (s *Service) GetStory(ctx context.Context, userID, adventureID int64, before, limit int) (StoryPage, error) {
	if limit <= 0 || limit > 200 {
		limit = pageSize
	}
	h, err := ownHead(ctx, s.store, userID, adventureID, false)
	if err != nil {
		return StoryPage{}, err
	}
	adv := h.adv
	if before <= 0 {
		before = adv.HeadDepth + 1
	}
	rows, err := s.store.LineTail(ctx, models.LineQuery{Line: h.line, BeforeDepth: before, Limit: limit + 1})
	if err != nil {
		return StoryPage{}, err
	}
	hasMore := len(rows) > limit
	rows = rows[:min(len(rows), limit)]
	slices.Reverse(rows)
	views, err := s.actionViews(ctx, s.store, rows)
	return StoryPage{Story: views, HasMore: hasMore}, err
}

// ListAdventures returns the caller's adventures.
func (s *Service) ListAdventures(ctx context.Context, userID int64) (AdventureList, error) {
	rows, err := s.store.ListAdventures(ctx, userID)
	out := AdventureList{Adventures: make([]AdventureSummary, len(rows))}
	for i, r := range rows {
		out.Adventures[i] = AdventureSummary{ID: r.ID, Title: r.Title, ScenarioID: r.ScenarioID, UpdatedAt: r.UpdatedAt}
	}
	return out, err
}

// UpdateAdventure edits the title, author's note or persona.
func (s *Service) UpdateAdventure(ctx context.Context, userID, adventureID int64, in AdventureChange) (AdventureView, error) {
	bad := apperr.E(apperr.ScenarioInvalid, "The adventure has a problem.")
	fields := map[string]any{}
	set := func(col string, v *string, max int, required bool) {
		if v != nil {
			checkText(bad, col, *v, max, required)
			fields[col] = *v
		}
	}
	set("title", in.Title, maxTitleRunes, true)
	set("authors_note", in.AuthorsNote, maxTextField, false)
	set("persona_name", in.PersonaName, 120, false)
	set("persona_pronouns", in.PersonaPronouns, 60, false)
	set("persona_desc", in.PersonaDesc, 2000, false)
	if len(bad.Fields) > 0 {
		return AdventureView{}, bad
	}
	fields["updated_at"] = s.now()
	page, err := s.treeChange(ctx, userID, adventureID, func(tx *models.Store, h head) error {
		return tx.UpdateAdventure(ctx, adventureID, fields)
	})
	return page.Adventure, err
}

// DeleteAdventure deletes an adventure with everything in it.
func (s *Service) DeleteAdventure(ctx context.Context, userID, adventureID int64) (Deleted, error) {
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		if _, err := ownAdventure(ctx, tx, userID, adventureID, true); err != nil {
			return err
		}
		return tx.DeleteAdventure(ctx, adventureID)
	})
	return Deleted{Deleted: err == nil}, err
}
