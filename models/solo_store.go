package models

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// actionListColumns are every column of actions except prompt_snapshot: list
// and page reads never load the prompt (the seed's 189× egress defect).
var actionListColumns = []string{
	"id", "adventure_id", "branch_id", "depth", "parent_id", "live", "kind", "mode", "text",
	"token_count", "world_state_after", "script_state_after", "outcomes", "finish_reason",
	"truncated", "stopped", "prompt_tokens", "completion_tokens", "cached_prompt_tokens", "snapshot_expired", "created_at",
	// has_prompt without reading the prompt itself.
	"(prompt_snapshot IS NOT NULL) AS has_prompt",
}

// ActionRow is an Action as list reads return it: everything but the prompt.
type ActionRow struct {
	Action
	HasPrompt bool
}

// LineSegment is one OR-clause of a line read: the live nodes of BranchID
// up to and including MaxDepth.
type LineSegment struct {
	BranchID int64
	MaxDepth int
}

// lineWhere renders the OR-clauses of a line. A line is at most a few dozen
// segments (one per fork along it), so this stays one indexed query.
func lineWhere(db *gorm.DB, line []LineSegment) *gorm.DB {
	cond, args := onLine(line)
	return db.Where("live AND "+cond, args...)
}

// onLine is the OR-clause of coordinates (branch_id, depth) that lie on a
// line, for nodes and for what hangs off them (memories).
func onLine(line []LineSegment) (string, []any) {
	var sb strings.Builder
	args := make([]any, 0, 2*len(line))
	sb.WriteString("(")
	for i, seg := range line {
		if i > 0 {
			sb.WriteString(" OR ")
		}
		sb.WriteString("(branch_id = ? AND depth <= ?)")
		args = append(args, seg.BranchID, seg.MaxDepth)
	}
	sb.WriteString(")")
	return sb.String(), args
}

// LineQuery reads part of a line.
type LineQuery struct {
	Line        []LineSegment
	BeforeDepth int     // only nodes with depth < BeforeDepth; 0 means no bound
	MinDepth    int     // only nodes with depth >= MinDepth
	Limit       int     // newest Limit nodes; 0 means all
	SkipIDs     []int64 // nodes excluded (the turn being retried)
	Offset      int     // skip this many newest nodes first (window rounds)
	// TextOnly reads only what the context builder needs (id, kind, text,
	// token count), not the state snapshots.
	TextOnly bool
	// StoryOnly reads less still: what a prompt's history shows (id, kind,
	// mode, text, token count).
	StoryOnly bool
}

var (
	actionTextColumns  = []string{"id", "branch_id", "depth", "parent_id", "live", "kind", "mode", "text", "token_count"}
	actionStoryColumns = []string{"id", "kind", "mode", "text", "token_count"}
)

// LineTail returns the newest nodes of a line, newest first.
func (s *Store) LineTail(ctx context.Context, q LineQuery) ([]ActionRow, error) {
	var rows []ActionRow
	cols := actionListColumns
	switch {
	case q.StoryOnly:
		cols = actionStoryColumns
	case q.TextOnly:
		cols = actionTextColumns
	}
	db := lineWhere(s.db.WithContext(ctx).Model(&Action{}).Select(cols), q.Line)
	if q.BeforeDepth > 0 {
		db = db.Where("depth < ?", q.BeforeDepth)
	}
	if q.MinDepth > 0 {
		db = db.Where("depth >= ?", q.MinDepth)
	}
	if len(q.SkipIDs) > 0 {
		db = db.Where("id NOT IN ?", q.SkipIDs)
	}
	db = db.Order("depth DESC")
	if q.Limit > 0 {
		db = db.Limit(q.Limit)
	}
	if q.Offset > 0 {
		db = db.Offset(q.Offset)
	}
	err := db.Find(&rows).Error
	return rows, translate(err, "story")
}

// LineCount counts the live nodes of a line.
func (s *Store) LineCount(ctx context.Context, line []LineSegment) (int64, error) {
	var n int64
	err := lineWhere(s.db.WithContext(ctx).Model(&Action{}), line).Count(&n).Error
	return n, translate(err, "story")
}

// FindActionRow loads a node without its prompt.
func (s *Store) FindActionRow(ctx context.Context, id int64) (*ActionRow, error) {
	var row ActionRow
	err := s.db.WithContext(ctx).Model(&Action{}).Select(actionListColumns).Where("id = ?", id).Take(&row).Error
	return &row, translate(err, "turn")
}

// FindActionPrompt loads only a node's compressed prompt snapshot.
func (s *Store) FindActionPrompt(ctx context.Context, id int64) ([]byte, error) {
	var snap struct{ PromptSnapshot []byte }
	err := s.db.WithContext(ctx).Model(&Action{}).Select("prompt_snapshot").Where("id = ?", id).Take(&snap).Error
	return snap.PromptSnapshot, translate(err, "turn")
}

// LiveActionAt returns the live node at a coordinate, or nil.
func (s *Store) LiveActionAt(ctx context.Context, branchID int64, depth int) (*ActionRow, error) {
	var rows []ActionRow
	err := s.db.WithContext(ctx).Model(&Action{}).Select(actionListColumns).
		Where("branch_id = ? AND depth = ? AND live", branchID, depth).Limit(1).Find(&rows).Error
	if err != nil || len(rows) == 0 {
		return nil, translate(err, "turn")
	}
	return &rows[0], nil
}

// MaxLiveDepth is the deepest live node a branch owns, or -1.
func (s *Store) MaxLiveDepth(ctx context.Context, branchID int64) (int, error) {
	var d *int
	err := s.db.WithContext(ctx).Model(&Action{}).Select("MAX(depth)").Where("branch_id = ? AND live", branchID).Scan(&d).Error
	if err != nil || d == nil {
		return -1, translate(err, "branch")
	}
	return *d, nil
}

// BranchBorrowed reports whether a child branch of branchID forks at
// minDepth or deeper, i.e. reads branchID's node at minDepth.
func (s *Store) BranchBorrowed(ctx context.Context, branchID int64, minDepth int) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&Branch{}).Where("parent_branch_id = ? AND fork_depth >= ?", branchID, minDepth).Limit(1).Count(&n).Error
	return n > 0, translate(err, "branch")
}

// TakeIDs returns, for each parent, the ids of its children (the takes of
// one turn) in creation order.
func (s *Store) TakeIDs(ctx context.Context, parentIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(parentIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		ID       int64
		ParentID int64
	}
	err := s.db.WithContext(ctx).Model(&Action{}).Select("id, parent_id").Where("parent_id IN ?", parentIDs).Order("id").Find(&rows).Error
	for _, r := range rows {
		out[r.ParentID] = append(out[r.ParentID], r.ID)
	}
	return out, translate(err, "takes")
}

// CreateAction inserts a node.
func (s *Store) CreateAction(ctx context.Context, a *Action) error {
	return translate(s.db.WithContext(ctx).Create(a).Error, "turn")
}

// SetActionLive flips a node's live flag.
func (s *Store) SetActionLive(ctx context.Context, id int64, live bool) error {
	return translate(s.db.WithContext(ctx).Model(&Action{}).Where("id = ?", id).Update("live", live).Error, "turn")
}

// MoveActionToBranch puts a take on a new branch as its live node.
func (s *Store) MoveActionToBranch(ctx context.Context, id, branchID int64) error {
	return translate(s.db.WithContext(ctx).Model(&Action{}).Where("id = ?", id).
		Updates(map[string]any{"branch_id": branchID, "live": true}).Error, "turn")
}

// UpdateActionText replaces a node's text and its cached token count.
func (s *Store) UpdateActionText(ctx context.Context, id int64, text string, tokens int) error {
	return translate(s.db.WithContext(ctx).Model(&Action{}).Where("id = ?", id).
		Updates(map[string]any{"text": text, "token_count": tokens}).Error, "turn")
}

// SetActionTokenCount caches a node's token count.
func (s *Store) SetActionTokenCount(ctx context.Context, id int64, tokens int) error {
	return translate(s.db.WithContext(ctx).Model(&Action{}).Where("id = ?", id).Update("token_count", tokens).Error, "turn")
}

// ReparentActions points every child of one of from at to.
func (s *Store) ReparentActions(ctx context.Context, from []int64, to *int64) error {
	return translate(s.db.WithContext(ctx).Model(&Action{}).Where("parent_id IN ?", from).Update("parent_id", to).Error, "turn")
}

// DeleteActions deletes nodes by id.
func (s *Store) DeleteActions(ctx context.Context, ids []int64) error {
	return translate(s.db.WithContext(ctx).Where("id IN ?", ids).Delete(&Action{}).Error, "turn")
}

// SiblingTakesAt returns the non-live takes sharing a node's coordinate.
func (s *Store) SiblingTakesAt(ctx context.Context, branchID int64, depth int) ([]int64, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Model(&Action{}).Where("branch_id = ? AND depth = ? AND NOT live", branchID, depth).Pluck("id", &ids).Error
	return ids, translate(err, "turn")
}

// --- branches ---

// CreateBranch inserts a branch.
func (s *Store) CreateBranch(ctx context.Context, b *Branch) error {
	return translate(s.db.WithContext(ctx).Create(b).Error, "branch")
}

// FindBranch loads a branch of an adventure.
func (s *Store) FindBranch(ctx context.Context, adventureID, id int64) (*Branch, error) {
	var b Branch
	err := s.db.WithContext(ctx).Where("id = ? AND adventure_id = ?", id, adventureID).Take(&b).Error
	return &b, translate(err, "branch")
}

// BranchWithTip is a branch and the deepest live node it owns (-1 for none).
type BranchWithTip struct {
	Branch
	TipDepth *int
}

// ListBranches returns an adventure's branches with their tips, oldest first.
func (s *Store) ListBranches(ctx context.Context, adventureID int64) ([]BranchWithTip, error) {
	var rows []BranchWithTip
	err := s.db.WithContext(ctx).Model(&Branch{}).
		Select("branches.*, (SELECT MAX(depth) FROM actions WHERE actions.branch_id = branches.id AND actions.live) AS tip_depth").
		Where("adventure_id = ?", adventureID).Order("id").Find(&rows).Error
	return rows, translate(err, "branches")
}

// RenameBranch renames a branch.
func (s *Store) RenameBranch(ctx context.Context, id int64, name string) error {
	return translate(s.db.WithContext(ctx).Model(&Branch{}).Where("id = ?", id).Update("name", name).Error, "branch")
}

// --- adventures ---

// CreateAdventure inserts an adventure.
func (s *Store) CreateAdventure(ctx context.Context, a *Adventure) error {
	return translate(s.db.WithContext(ctx).Create(a).Error, "adventure")
}

// FindAdventure loads an adventure.
func (s *Store) FindAdventure(ctx context.Context, id int64) (*Adventure, error) {
	var a Adventure
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&a).Error
	return &a, translate(err, "adventure")
}

// LockAdventure loads an adventure for update inside a transaction, so two
// tree changes of one adventure never interleave.
func (s *Store) LockAdventure(ctx context.Context, id int64) (*Adventure, error) {
	var a Adventure
	db := s.db.WithContext(ctx)
	if s.dialect == Postgres {
		db = db.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	err := db.Where("id = ?", id).Take(&a).Error
	return &a, translate(err, "adventure")
}

// AdventureSummary is a row of the adventure list.
type AdventureSummary struct {
	ID         int64
	Title      string
	ScenarioID *int64
	UpdatedAt  time.Time
}

// ListAdventures returns a user's adventures, newest first.
func (s *Store) ListAdventures(ctx context.Context, userID int64) ([]AdventureSummary, error) {
	var rows []AdventureSummary
	err := s.db.WithContext(ctx).Model(&Adventure{}).Select("id, title, scenario_id, updated_at").
		Where("user_id = ?", userID).Order("updated_at DESC, id DESC").Find(&rows).Error
	return rows, translate(err, "adventures")
}

// UpdateAdventure writes the given columns.
func (s *Store) UpdateAdventure(ctx context.Context, id int64, fields map[string]any) error {
	return translate(s.db.WithContext(ctx).Model(&Adventure{}).Where("id = ?", id).Updates(fields).Error, "adventure")
}

// DeleteAdventure deletes an adventure; its branches, nodes and cards go
// with it (ON DELETE CASCADE, no rows pulled into the process).
func (s *Store) DeleteAdventure(ctx context.Context, id int64) error {
	return translate(s.db.WithContext(ctx).Where("id = ?", id).Delete(&Adventure{}).Error, "adventure")
}

// ClaimTurn takes the adventure's turn slot with token unless another live
// claim holds it; a claim whose last heartbeat is before staleBefore is dead.
func (s *Store) ClaimTurn(ctx context.Context, id int64, token string, now, staleBefore time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Model(&Adventure{}).
		Where("id = ? AND (turn_token = '' OR turn_started_at IS NULL OR turn_started_at < ?)", id, staleBefore).
		Updates(map[string]any{"turn_token": token, "turn_started_at": now, "turn_stop": ""})
	return res.RowsAffected == 1, translate(res.Error, "adventure")
}

// RenewTurn records a heartbeat of the claim token; it reports whether
// token still holds the slot and whether a Stop was asked for it
// (RequestTurnStop), in one statement. It leaves updated_at alone: a
// heartbeat is not a change of the adventure.
func (s *Store) RenewTurn(ctx context.Context, id int64, token string, now time.Time) (held, stop bool, err error) {
	// UPDATE … RETURNING (SQLite 3.35+ and PostgreSQL): the heartbeat and
	// the stop request are one round trip.
	var stops []string
	err = s.db.WithContext(ctx).Raw("UPDATE adventures SET turn_started_at = ? WHERE id = ? AND turn_token = ? RETURNING turn_stop",
		now, id, token).Scan(&stops).Error
	if err != nil {
		return false, false, translate(err, "adventure")
	}
	return len(stops) == 1, len(stops) == 1 && stops[0] == token, nil
}

// RequestTurnStop asks the adventure's live turn to stop, wherever it runs:
// it stores the claim's token as turn_stop and, on PostgreSQL, tells every
// server process at commit (ListenTurnStops). It reports false, changing
// nothing, when no live claim holds the slot (none, or its heartbeat is
// before staleBefore) or its stop was already asked for.
func (s *Store) RequestTurnStop(ctx context.Context, id int64, staleBefore time.Time) (bool, error) {
	asked := false
	err := s.Tx(ctx, func(tx *Store) error {
		res := tx.db.WithContext(ctx).Model(&Adventure{}).
			Where("id = ? AND turn_token <> '' AND turn_stop <> turn_token AND turn_started_at >= ?", id, staleBefore).
			UpdateColumn("turn_stop", gorm.Expr("turn_token"))
		if res.Error != nil {
			return translate(res.Error, "adventure")
		}
		asked = res.RowsAffected == 1
		if asked {
			return tx.notify(ctx, turnStopsChannel, id)
		}
		return nil
	})
	return asked, err
}

// ReleaseTurn frees the turn slot if token still holds it.
func (s *Store) ReleaseTurn(ctx context.Context, id int64, token string) error {
	return translate(s.db.WithContext(ctx).Model(&Adventure{}).Where("id = ? AND turn_token = ?", id, token).
		Updates(map[string]any{"turn_token": "", "turn_started_at": nil, "turn_stop": ""}).Error, "adventure")
}

// ReleaseDeadTurns frees every claim whose token starts with holderPrefix
// (claims of a process known to be gone) or whose last heartbeat is before
// staleBefore, and returns how many it freed. holderPrefix must not contain
// LIKE wildcards; "" matches no token.
func (s *Store) ReleaseDeadTurns(ctx context.Context, holderPrefix string, staleBefore time.Time) (int64, error) {
	db := s.db.WithContext(ctx).Model(&Adventure{})
	if holderPrefix != "" {
		db = db.Where("turn_token <> '' AND (turn_started_at IS NULL OR turn_started_at < ? OR turn_token LIKE ?)", staleBefore, holderPrefix+"%")
	} else {
		db = db.Where("turn_token <> '' AND (turn_started_at IS NULL OR turn_started_at < ?)", staleBefore)
	}
	res := db.UpdateColumns(map[string]any{"turn_token": "", "turn_started_at": nil, "turn_stop": ""})
	return res.RowsAffected, translate(res.Error, "adventure")
}

// --- cards ---

// AdventureCards returns an adventure's cards in order: with a line, the
// cards on that line (the shared ones and those a turn live on the line
// created); with none, every card.
func (s *Store) AdventureCards(ctx context.Context, adventureID int64, line []LineSegment) ([]AdventureCard, error) {
	return s.cardsOnLine(ctx, adventureID, line, nil)
}

// cardsOnLine reads the columns cols (nil: all) of an adventure's cards on
// a line (nil: every card).
func (s *Store) cardsOnLine(ctx context.Context, adventureID int64, line []LineSegment, cols []string) ([]AdventureCard, error) {
	var cards []AdventureCard
	db := s.db.WithContext(ctx).Where("adventure_cards.adventure_id = ?", adventureID)
	if cols != nil {
		db = db.Select(cols)
	}
	if line != nil {
		cond, args := onLine(line)
		db = db.Joins("LEFT JOIN actions ON actions.id = adventure_cards.origin_action_id").
			Where("adventure_cards.origin_action_id IS NULL OR (actions.live AND "+cond+")", args...)
	}
	err := db.Order("adventure_cards.position, adventure_cards.id").Find(&cards).Error
	return cards, translate(err, "cards")
}

// cardTriggerColumns are what deciding whether a card fires needs: its keys
// and rules, not its entry.
var cardTriggerColumns = []string{"adventure_cards.id", "adventure_cards.keys", "adventure_cards.secondary_keys",
	"adventure_cards.logic", "adventure_cards.constant", "adventure_cards.priority", "adventure_cards.disabled"}

// AdventureCardTriggers is AdventureCards with only cardTriggerColumns
// filled: a turn reads every card's keys but only the entries of the cards
// that fire (AdventureCardsByID).
func (s *Store) AdventureCardTriggers(ctx context.Context, adventureID int64, line []LineSegment) ([]AdventureCard, error) {
	return s.cardsOnLine(ctx, adventureID, line, cardTriggerColumns)
}

// AdventureCardsByID returns cards of an adventure by id, in the order
// AdventureCards lists them.
func (s *Store) AdventureCardsByID(ctx context.Context, adventureID int64, ids []int64) ([]AdventureCard, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var cards []AdventureCard
	err := s.db.WithContext(ctx).Where("adventure_id = ? AND id IN ?", adventureID, ids).Order("position, id").Find(&cards).Error
	return cards, translate(err, "cards")
}

// CreateAdventureCards inserts cards.
func (s *Store) CreateAdventureCards(ctx context.Context, cards []AdventureCard) error {
	if len(cards) == 0 {
		return nil
	}
	return translate(s.db.WithContext(ctx).Create(&cards).Error, "cards")
}

// SaveAdventureCard updates one card.
func (s *Store) SaveAdventureCard(ctx context.Context, c *AdventureCard) error {
	return translate(s.db.WithContext(ctx).Save(c).Error, "card")
}

// DeleteAdventureCards deletes cards by id.
func (s *Store) DeleteAdventureCards(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	return translate(s.db.WithContext(ctx).Where("id IN ?", ids).Delete(&AdventureCard{}).Error, "cards")
}

// --- scenarios ---

// CreateScenario inserts a scenario and its cards.
func (s *Store) CreateScenario(ctx context.Context, sc *Scenario, cards []ScenarioCard) error {
	if err := s.db.WithContext(ctx).Create(sc).Error; err != nil {
		return translate(err, "scenario")
	}
	return s.replaceScenarioCards(ctx, sc.ID, cards)
}

// UpdateScenario saves a scenario and replaces its cards. Card ids are kept
// where the input names an existing card of this scenario, so adventures
// copied from it can tell an updated card from a new one.
func (s *Store) UpdateScenario(ctx context.Context, sc *Scenario, cards []ScenarioCard) error {
	if err := s.db.WithContext(ctx).Select("*").Omit("created_at", "user_id").Updates(sc).Error; err != nil {
		return translate(err, "scenario")
	}
	return s.replaceScenarioCards(ctx, sc.ID, cards)
}

func (s *Store) replaceScenarioCards(ctx context.Context, scenarioID int64, cards []ScenarioCard) error {
	var keep []int64
	for i := range cards {
		cards[i].ScenarioID = scenarioID
		cards[i].Position = i
		if cards[i].ID != 0 {
			keep = append(keep, cards[i].ID)
		}
	}
	del := s.db.WithContext(ctx).Where("scenario_id = ?", scenarioID)
	if len(keep) > 0 {
		del = del.Where("id NOT IN ?", keep)
	}
	if err := del.Delete(&ScenarioCard{}).Error; err != nil {
		return translate(err, "cards")
	}
	for i := range cards {
		if err := s.db.WithContext(ctx).Save(&cards[i]).Error; err != nil {
			return translate(err, "card")
		}
	}
	return nil
}

// FindScenario loads a scenario.
func (s *Store) FindScenario(ctx context.Context, id int64) (*Scenario, error) {
	var sc Scenario
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&sc).Error
	return &sc, translate(err, "scenario")
}

// ScenarioCards returns a scenario's cards in order.
func (s *Store) ScenarioCards(ctx context.Context, scenarioID int64) ([]ScenarioCard, error) {
	var cards []ScenarioCard
	err := s.db.WithContext(ctx).Where("scenario_id = ?", scenarioID).Order("position, id").Find(&cards).Error
	return cards, translate(err, "cards")
}

// ListScenarios returns a user's scenarios, newest first.
func (s *Store) ListScenarios(ctx context.Context, userID int64) ([]Scenario, error) {
	var rows []Scenario
	err := s.db.WithContext(ctx).Select("id, user_id, title, premise, created_at, updated_at").
		Where("user_id = ?", userID).Order("updated_at DESC, id DESC").Find(&rows).Error
	return rows, translate(err, "scenarios")
}

// DeleteScenario deletes a scenario and its cards; adventures copied from it
// keep playing (their scenario_id becomes NULL).
func (s *Store) DeleteScenario(ctx context.Context, id int64) error {
	return translate(s.db.WithContext(ctx).Where("id = ?", id).Delete(&Scenario{}).Error, "scenario")
}

// --- provider settings ---

// FindProviderSetting loads a user's settings, or nil when none are saved.
func (s *Store) FindProviderSetting(ctx context.Context, userID int64) (*ProviderSetting, error) {
	var p ProviderSetting
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	return &p, translate(err, "settings")
}

// SaveProviderSetting inserts or replaces a user's settings.
func (s *Store) SaveProviderSetting(ctx context.Context, p *ProviderSetting) error {
	return translate(s.db.WithContext(ctx).Save(p).Error, "settings")
}

// ReplaceProviderKey swaps a user's sealed API key from old to sealed (the
// same key sealed again after a rotation of the server secret), only while
// the row still holds old, so a settings save in between wins.
func (s *Store) ReplaceProviderKey(ctx context.Context, userID int64, old, sealed string) error {
	err := s.db.WithContext(ctx).Model(&ProviderSetting{}).Where("user_id = ? AND api_key_sealed = ?", userID, old).
		Update("api_key_sealed", sealed).Error
	return translate(err, "settings")
}

// SetActionWorldState replaces a node's world state snapshot.
func (s *Store) SetActionWorldState(ctx context.Context, id int64, state string) error {
	return translate(s.db.WithContext(ctx).Model(&Action{}).Where("id = ?", id).Update("world_state_after", state).Error, "turn")
}

// CreateConsoleEntries appends lines to script consoles.
func (s *Store) CreateConsoleEntries(ctx context.Context, entries []ScriptConsoleEntry) error {
	if len(entries) == 0 {
		return nil
	}
	return translate(s.db.WithContext(ctx).Create(&entries).Error, "console")
}

// ConsoleTail returns the newest limit console lines of an adventure, oldest first.
func (s *Store) ConsoleTail(ctx context.Context, adventureID int64, limit int) ([]ScriptConsoleEntry, error) {
	var rows []ScriptConsoleEntry
	err := s.db.WithContext(ctx).Where("adventure_id = ?", adventureID).Order("id DESC").Limit(limit).Find(&rows).Error
	slices.Reverse(rows)
	return rows, translate(err, "console")
}
