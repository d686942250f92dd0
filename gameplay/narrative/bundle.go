package narrative

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/appfile"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Bundles (Engine Room §3.3) carry a whole adventure, or a scenario, as one
// JSON file. A bundle never carries database ids, owners or timestamps:
// the numbers in it ("ref", "parent", "branch", "origin") are references
// inside the file, numbered from 1 on export, so an import can only ever
// create new rows of the importer, and exporting an import gives back the
// same file.
const (
	AdventureBundleFormat = "adventure-table.adventure"
	ScenarioBundleFormat  = "adventure-table.scenario"
	// BundleVersion is the version of both formats this build writes and
	// the only one it reads.
	BundleVersion = 1
)

// Caps of an adventure import, counted on the rows the import would write
// (every take is a row), never on a count the file states: the seed's import
// counted turns while each turn expanded into a row per take, so a file
// inside a 5,000-turn cap wrote 50,000 rows.
const (
	MaxBundleNodes    = 20000
	MaxBundleBranches = 2000
	MaxBundleMemories = 10000
	// MaxBundleBytes bounds an adventure bundle; MaxScenarioBundleBytes a
	// scenario (four full script slots and 500 full cards fit).
	MaxBundleBytes         = 32 << 20
	MaxScenarioBundleBytes = 8 << 20
	// maxNodeText bounds one node's text (a long narration is longer than
	// what a player may type or edit).
	maxNodeText = 200000
	// maxBundleDepth bounds a depth in a bundle.
	maxBundleDepth = 1 << 20
)

var (
	adventureBundleSpec = appfile.Spec{Format: AdventureBundleFormat, Version: BundleVersion, MaxBytes: MaxBundleBytes, Noun: "adventure bundle"}
	scenarioBundleSpec  = appfile.Spec{Format: ScenarioBundleFormat, Version: BundleVersion, MaxBytes: MaxScenarioBundleBytes, Noun: "scenario bundle"}
)

// ScenarioBundle is a scenario as a file: the scenario as a person writes it.
type ScenarioBundle struct {
	Format   string        `json:"format" jsonschema:"always adventure-table.scenario"`
	Version  int           `json:"version" jsonschema:"format version; 1"`
	Scenario ScenarioInput `json:"scenario"`
}

// AdventureBundle is an adventure as a file: everything needed to play on
// from where it stands, on every line.
type AdventureBundle struct {
	Format    string          `json:"format" jsonschema:"always adventure-table.adventure"`
	Version   int             `json:"version" jsonschema:"format version; 1"`
	Adventure BundleAdventure `json:"adventure"`
}

// BundleAdventure is the content of an adventure bundle.
type BundleAdventure struct {
	Title          string `json:"title"`
	Premise        string `json:"premise"`
	PlotEssentials string `json:"plot_essentials"`
	AIInstructions string `json:"ai_instructions"`
	AuthorsNote    string `json:"authors_note"`
	StatSchema     Schema `json:"stat_schema"`
	Persona
	Summary  string         `json:"summary"`
	Scripts  Scripts        `json:"scripts"`
	Cards    []BundleCard   `json:"cards"`
	Branches []BundleBranch `json:"branches" jsonschema:"the first is the main line; a branch's parent comes before it"`
	// HeadBranch is the branch being played (its tip is the head).
	HeadBranch int            `json:"head_branch" jsonschema:"ref of the branch being played"`
	Turns      []BundleTurn   `json:"turns" jsonschema:"a turn's parent comes before it"`
	Memories   []BundleMemory `json:"memories"`
}

// BundleCard is an adventure's story card.
type BundleCard struct {
	CardInput
	Description    string `json:"description"`
	PlayerAuthored bool   `json:"player_authored"`
	// Disabled cards are set aside: never in a prompt, unseen by scripts.
	Disabled bool `json:"disabled"`
	// Origin is the node whose turn created the card: the card is on the
	// lines that node is live on. 0: on every line.
	Origin int `json:"origin" jsonschema:"ref of the node whose turn created the card; 0 for a card on every line"`
}

// BundleBranch is one line of the tree.
type BundleBranch struct {
	Ref       int    `json:"ref" jsonschema:"this branch's reference in the file, from 1"`
	Parent    int    `json:"parent" jsonschema:"ref of the branch it forks from; 0 for the main line"`
	ForkDepth int    `json:"fork_depth" jsonschema:"the depth up to which it reads its parent's line"`
	Name      string `json:"name"`
}

// BundleTurn is the takes of one turn: every child of one node.
type BundleTurn struct {
	Parent int          `json:"parent" jsonschema:"ref of the node the takes answer; 0 for the opening"`
	Takes  []BundleNode `json:"takes"`
}

// BundleNode is one node of the story tree (one take).
type BundleNode struct {
	Ref          int            `json:"ref" jsonschema:"this node's reference in the file, from 1"`
	Branch       int            `json:"branch" jsonschema:"ref of its branch"`
	Depth        int            `json:"depth"`
	Live         bool           `json:"live" jsonschema:"the take its branch shows at this depth (one per branch and depth)"`
	Kind         string         `json:"kind" jsonschema:"opening, player or narration"`
	Mode         string         `json:"mode" jsonschema:"do, say, story, continue or empty"`
	Text         string         `json:"text"`
	WorldState   State          `json:"world_state" jsonschema:"the stats as this node leaves them"`
	ScriptState  map[string]any `json:"script_state" jsonschema:"the scripts' state as this node leaves it"`
	Outcomes     []Outcome      `json:"outcomes"`
	FinishReason string         `json:"finish_reason"`
	Truncated    bool           `json:"truncated"`
	Stopped      bool           `json:"stopped"`
}

// BundleMemory is one entry of the memory bank, anchored on a node's
// coordinate.
type BundleMemory struct {
	Branch    int    `json:"branch" jsonschema:"ref of the branch of the node it hangs off"`
	Depth     int    `json:"depth"`
	FromDepth int    `json:"from_depth"`
	Kind      string `json:"kind" jsonschema:"block, note or summary"`
	Text      string `json:"text"`
	Pinned    bool   `json:"pinned"`
	Forgotten bool   `json:"forgotten"`
	Stale     bool   `json:"stale"`
}

// BundleFileName is the name a bundle is saved under:
// "<title>.adventure.json" or "<title>.scenario.json".
func BundleFileName(title, format string) string {
	kind := strings.TrimPrefix(format, "adventure-table.")
	return appfile.FileName(title, kind, "."+kind+".json")
}

// ExportScenario returns one of the caller's scenarios as a bundle.
// Returns not_found for a scenario that is not the caller's.
func (s *Service) ExportScenario(ctx context.Context, userID, id int64) (ScenarioBundle, error) {
	v, err := s.GetScenario(ctx, userID, id)
	if err != nil {
		return ScenarioBundle{}, err
	}
	in := ScenarioInput{Title: v.Title, Premise: v.Premise, PlotEssentials: v.PlotEssentials, AIInstructions: v.AIInstructions,
		AuthorsNote: v.AuthorsNote, Opening: v.Opening, StatSchema: v.StatSchema, Cards: make([]CardInput, len(v.Cards)), Scripts: v.Scripts}
	for i, c := range v.Cards {
		in.Cards[i] = c.CardInput
	}
	return ScenarioBundle{Format: ScenarioBundleFormat, Version: BundleVersion, Scenario: in}, nil
}

// ImportScenario creates a new scenario of the caller from a scenario
// bundle, under the same rules as CreateScenario. Returns invalid_request
// for a file that is too big, not JSON, has duplicate keys or unknown
// fields; import_format_unsupported for another format or version;
// scenario_invalid with per-field problems. Nothing is written on any error.
func (s *Service) ImportScenario(ctx context.Context, userID int64, data []byte) (ScenarioView, error) {
	return s.importScenario(ctx, s.store, userID, data)
}

// importScenario is ImportScenario in store.
func (s *Service) importScenario(ctx context.Context, store *models.Store, userID int64, data []byte) (ScenarioView, error) {
	var b ScenarioBundle
	if err := scenarioBundleSpec.Decode(data, &b); err != nil {
		return ScenarioView{}, err
	}
	return s.createScenario(ctx, store, userID, b.Scenario)
}

// DecodeAdventureBundle reads an adventure bundle strictly (see
// appfile.Spec.Decode). It checks nothing of the tree; ImportAdventure
// does. Returns invalid_request or import_format_unsupported.
func DecodeAdventureBundle(data []byte) (AdventureBundle, error) {
	var b AdventureBundle
	err := adventureBundleSpec.Decode(data, &b)
	return b, err
}

// ExportAdventure returns one of the caller's adventures as a bundle: its
// plot fields, persona, scripts, cards, every branch, every take of every
// turn with the state it leaves, and the memory bank (without vectors,
// which the memory worker writes again). Returns not_found for an adventure
// that is not the caller's.
func (s *Service) ExportAdventure(ctx context.Context, userID, id int64) (AdventureBundle, error) {
	adv, err := ownAdventure(ctx, s.store, userID, id, false)
	if err != nil {
		return AdventureBundle{}, err
	}
	// The reads are ordered so that a turn written meanwhile cannot leave a
	// reference dangling: what a row points at is read after it (cards and
	// memories, then the nodes they name, then every branch), and nothing
	// but the adventure's deletion removes a branch.
	cards, err := s.store.AdventureCards(ctx, id, nil)
	if err != nil {
		return AdventureBundle{}, err
	}
	memories, err := s.store.AdventureMemories(ctx, id)
	if err != nil {
		return AdventureBundle{}, err
	}
	nodes, err := s.store.AdventureActions(ctx, id)
	if err != nil {
		return AdventureBundle{}, err
	}
	branches, err := s.store.ListBranches(ctx, id)
	if err != nil {
		return AdventureBundle{}, err
	}
	out := BundleAdventure{Title: adv.Title, Premise: adv.Premise, PlotEssentials: adv.PlotEssentials, AIInstructions: adv.AIInstructions,
		AuthorsNote: adv.AuthorsNote, StatSchema: parseSchema(adv.StatSchema),
		Persona: Persona{PersonaName: adv.PersonaName, PersonaPronouns: adv.PersonaPronouns, PersonaDesc: adv.PersonaDesc},
		Summary: adv.Summary, Scripts: Scripts{Library: adv.ScriptLibrary, Input: adv.ScriptInput, Context: adv.ScriptContext, Output: adv.ScriptOutput},
		Cards: []BundleCard{}, Branches: make([]BundleBranch, len(branches)), Turns: []BundleTurn{}, Memories: []BundleMemory{}}

	// Branches in creation order: a parent is always older than its child.
	branchRef := map[int64]int{}
	for i, b := range branches {
		branchRef[b.ID] = i + 1
	}
	for i, b := range branches {
		out.Branches[i] = BundleBranch{Ref: i + 1, ForkDepth: b.ForkDepth, Name: b.Name}
		if b.ParentBranchID != nil {
			out.Branches[i].Parent = branchRef[*b.ParentBranchID]
		}
	}
	out.HeadBranch = branchRef[adv.HeadBranchID]

	// Turns: the children of one parent, in the order of their first take;
	// a parent is older than its children, so its turn comes first and its
	// ref is smaller.
	turnOf := map[int64]int{} // parent id (0: none) -> index in out.Turns
	var order []int64
	for _, n := range nodes {
		p := int64(0)
		if n.ParentID != nil {
			p = *n.ParentID
		}
		if _, ok := turnOf[p]; !ok {
			turnOf[p] = len(order)
			order = append(order, p)
		}
	}
	grouped := make([][]models.ActionRow, len(order))
	for _, n := range nodes {
		p := int64(0)
		if n.ParentID != nil {
			p = *n.ParentID
		}
		grouped[turnOf[p]] = append(grouped[turnOf[p]], n)
	}
	nodeRef := map[int64]int{}
	for i, takes := range grouped {
		t := BundleTurn{Parent: nodeRef[order[i]], Takes: make([]BundleNode, len(takes))}
		for j, n := range takes {
			nodeRef[n.ID] = len(nodeRef) + 1
			script := map[string]any{}
			_ = json.Unmarshal([]byte(n.ScriptStateAfter), &script)
			if script == nil {
				script = map[string]any{}
			}
			t.Takes[j] = BundleNode{Ref: nodeRef[n.ID], Branch: branchRef[n.BranchID], Depth: n.Depth, Live: n.Live, Kind: n.Kind, Mode: n.Mode,
				Text: n.Text, WorldState: parseState(n.WorldStateAfter), ScriptState: script, Outcomes: parseOutcomes(n.Outcomes),
				FinishReason: n.FinishReason, Truncated: n.Truncated, Stopped: n.Stopped}
		}
		out.Turns = append(out.Turns, t)
	}
	for _, c := range cards {
		bc := BundleCard{CardInput: adventureCardView(c).CardInput, Description: c.Description, PlayerAuthored: c.PlayerAuthored, Disabled: c.Disabled}
		if c.OriginActionID != nil {
			bc.Origin = nodeRef[*c.OriginActionID]
		}
		out.Cards = append(out.Cards, bc)
	}
	slices.SortFunc(memories, func(a, b models.Memory) int { return int(a.ID - b.ID) })
	for _, m := range memories {
		out.Memories = append(out.Memories, BundleMemory{Branch: branchRef[m.BranchID], Depth: m.Depth, FromDepth: m.FromDepth, Kind: m.Kind,
			Text: m.Text, Pinned: m.Pinned, Forgotten: m.Forgotten, Stale: m.Stale})
	}
	return AdventureBundle{Format: AdventureBundleFormat, Version: BundleVersion, Adventure: out}, nil
}

// ImportAdventure creates a new adventure of the caller from an adventure
// bundle, in one transaction: the references in the file only link its
// parts, every row gets a new id and the caller as owner, and the adventure
// belongs to no scenario. Returns invalid_request for a file that is too
// big, not JSON, has duplicate keys or unknown fields;
// import_format_unsupported for another format or version; scenario_invalid
// for a plot field, persona, script or card that breaks the rules of
// creating one; bundle_invalid when the tree does not hold together or the
// rows it would write pass a cap. Nothing is written on any error.
func (s *Service) ImportAdventure(ctx context.Context, userID int64, data []byte) (AdventurePage, error) {
	c, err := CheckAdventureBundle(data)
	if err != nil {
		return AdventurePage{}, err
	}
	var advID int64
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		id, err := s.writeBundle(ctx, tx, userID, c)
		advID = id
		return err
	})
	if err != nil {
		return AdventurePage{}, err
	}
	return s.GetAdventure(ctx, userID, advID)
}

// CheckedBundle is an adventure bundle that passed every check of an
// import, ready to be written.
type CheckedBundle struct {
	bundle AdventureBundle
	plan   bundlePlan
}

// CheckAdventureBundle runs every check of ImportAdventure without writing:
// the strict decoding, the caps on the rows it would write, the rules of
// the plot fields, persona, scripts and cards, and the shape of the tree.
// It returns the codes ImportAdventure does.
func CheckAdventureBundle(data []byte) (CheckedBundle, error) {
	b, err := DecodeAdventureBundle(data)
	if err != nil {
		return CheckedBundle{}, err
	}
	a := &b.Adventure
	if err := checkBundleRows(a); err != nil {
		return CheckedBundle{}, err
	}
	// The plot fields, scripts and cards follow the rules of a scenario.
	sc := ScenarioInput{Title: a.Title, Premise: a.Premise, PlotEssentials: a.PlotEssentials, AIInstructions: a.AIInstructions,
		AuthorsNote: a.AuthorsNote, StatSchema: a.StatSchema, Scripts: a.Scripts, Cards: make([]CardInput, len(a.Cards))}
	for i, c := range a.Cards {
		sc.Cards[i] = c.CardInput
	}
	if err := validateScenario(&sc); err != nil {
		return CheckedBundle{}, err
	}
	if err := validatePersona(&a.Persona); err != nil {
		return CheckedBundle{}, err
	}
	plan, err := planBundle(a)
	if err != nil {
		return CheckedBundle{}, err
	}
	// What validateScenario trimmed and filled in is what is stored.
	a.Title, a.StatSchema = sc.Title, sc.StatSchema
	for i := range a.Cards {
		a.Cards[i].CardInput = sc.Cards[i]
	}
	return CheckedBundle{bundle: b, plan: plan}, nil
}

// checkBundleRows counts the rows the import would write against the caps,
// before anything else is looked at: each take of each turn is a row.
func checkBundleRows(a *BundleAdventure) error {
	nodes := 0
	for _, t := range a.Turns {
		nodes += len(t.Takes)
	}
	bad := apperr.E(apperr.BundleInvalid, "The adventure bundle is larger than an adventure may be.")
	for _, c := range []struct {
		field    string
		n, limit int
	}{{"turns", nodes, MaxBundleNodes}, {"branches", len(a.Branches), MaxBundleBranches},
		{"memories", len(a.Memories), MaxBundleMemories}, {"cards", len(a.Cards), MaxCards}} {
		if c.n > c.limit {
			bad.WithField(c.field, fmt.Sprintf("at most %d rows; the file carries %d", c.limit, c.n))
		}
	}
	if len(bad.Fields) > 0 {
		return bad.WithDetail("limit_nodes", MaxBundleNodes).WithDetail("nodes", nodes)
	}
	return nil
}

// bundlePlan is a checked bundle: where each reference points.
type bundlePlan struct {
	branchIndex map[int]int // ref -> index in Branches
	headDepth   int
}

// planBundle checks that the tree in a bundle holds together as the engine
// keeps it: references resolve to earlier parts of the file, the main line
// starts with the live opening at depth 0, a branch owns nodes only below
// its fork, one live take per branch and depth, a child deeper than its
// parent, and texts within bounds. Returns bundle_invalid with the fields
// at fault.
func planBundle(a *BundleAdventure) (bundlePlan, error) {
	bad := apperr.E(apperr.BundleInvalid, "The adventure bundle's story does not hold together.")
	p := bundlePlan{branchIndex: map[int]int{}}
	if len(a.Branches) == 0 {
		bad.WithField("branches", "at least the main line")
	}
	for i, br := range a.Branches {
		field := fmt.Sprintf("branches[%d]", i)
		checkText(bad, field+".name", br.Name, 120, true)
		switch _, dup := p.branchIndex[br.Ref]; {
		case br.Ref <= 0 || dup:
			bad.WithField(field+".ref", "a positive number used once")
			continue
		case i == 0 && (br.Parent != 0 || br.ForkDepth != 0):
			bad.WithField(field, "the main line has no parent and forks at 0")
		case i > 0:
			if _, ok := p.branchIndex[br.Parent]; !ok {
				bad.WithField(field+".parent", "the ref of an earlier branch")
			}
			if br.ForkDepth < 0 || br.ForkDepth > maxBundleDepth {
				bad.WithField(field+".fork_depth", fmt.Sprintf("0 to %d", maxBundleDepth))
			}
		}
		p.branchIndex[br.Ref] = i
	}
	if _, ok := p.branchIndex[a.HeadBranch]; !ok {
		bad.WithField("head_branch", "the ref of a branch")
	}
	type coord struct{ branch, depth int }
	depthOf := map[int]int{}
	live := map[coord]bool{}
	tip := map[int]int{} // branch ref -> deepest live depth
	opening := false
	for i, t := range a.Turns {
		parentDepth, hasParent := -1, t.Parent != 0
		if hasParent {
			d, ok := depthOf[t.Parent]
			if !ok {
				bad.WithField(fmt.Sprintf("turns[%d].parent", i), "the ref of a node of an earlier turn")
				continue
			}
			parentDepth = d
		}
		for j, n := range t.Takes {
			field := fmt.Sprintf("turns[%d].takes[%d]", i, j)
			if _, dup := depthOf[n.Ref]; n.Ref <= 0 || dup {
				bad.WithField(field+".ref", "a positive number used once")
				continue
			}
			bi, ok := p.branchIndex[n.Branch]
			switch {
			case !ok:
				bad.WithField(field+".branch", "the ref of a branch")
			case n.Depth < 0 || n.Depth > maxBundleDepth:
				bad.WithField(field+".depth", fmt.Sprintf("0 to %d", maxBundleDepth))
			case hasParent && n.Depth <= parentDepth:
				bad.WithField(field+".depth", "deeper than its parent")
			case bi > 0 && n.Depth <= a.Branches[bi].ForkDepth:
				bad.WithField(field+".depth", "deeper than its branch's fork")
			case n.Live && live[coord{n.Branch, n.Depth}]:
				bad.WithField(field+".live", "one live take per branch and depth")
			}
			switch n.Kind {
			case models.ActionOpening:
				if bi != 0 || n.Depth != 0 || hasParent || !n.Live || opening {
					bad.WithField(field+".kind", "one opening: live, at depth 0 of the main line, without a parent")
				}
				opening = true
			case models.ActionPlayer, models.ActionNarration:
			default:
				bad.WithField(field+".kind", "opening, player or narration")
			}
			switch n.Mode {
			case "", ModeDo, ModeSay, ModeStory, ModeContinue:
			default:
				bad.WithField(field+".mode", "do, say, story, continue or empty")
			}
			checkText(bad, field+".text", n.Text, maxNodeText, false)
			checkText(bad, field+".finish_reason", n.FinishReason, 32, false)
			if !models.StorableText(mustJSON(n.WorldState)) || !models.StorableText(mustJSON(n.ScriptState)) || !models.StorableText(mustJSON(n.Outcomes)) {
				bad.WithField(field, models.UnstorableTextProblem)
			}
			depthOf[n.Ref] = n.Depth
			if n.Live {
				live[coord{n.Branch, n.Depth}] = true
				if d, seen := tip[n.Branch]; !seen || n.Depth > d {
					tip[n.Branch] = n.Depth
				}
			}
		}
	}
	if !opening {
		bad.WithField("turns", "the opening: live, at depth 0 of the main line")
	}
	for i, c := range a.Cards {
		field := fmt.Sprintf("cards[%d]", i)
		checkText(bad, field+".description", c.Description, maxCardEntry, false)
		if _, ok := depthOf[c.Origin]; c.Origin != 0 && !ok {
			bad.WithField(field+".origin", "the ref of a node, or 0")
		}
	}
	for i, m := range a.Memories {
		field := fmt.Sprintf("memories[%d]", i)
		if _, ok := p.branchIndex[m.Branch]; !ok {
			bad.WithField(field+".branch", "the ref of a branch")
		}
		if m.Depth < 0 || m.Depth > maxBundleDepth || m.FromDepth < 0 || m.FromDepth > m.Depth {
			bad.WithField(field+".depth", "0 ≤ from_depth ≤ depth")
		}
		switch m.Kind {
		case models.MemoryBlock, models.MemoryNote, models.MemorySummary:
		default:
			bad.WithField(field+".kind", "block, note or summary")
		}
		checkText(bad, field+".text", m.Text, maxTextField, true)
	}
	checkText(bad, "summary", a.Summary, maxTextField, false)
	if len(bad.Fields) > 0 {
		return bundlePlan{}, bad
	}
	// The head is the tip of its branch (tree.go's first invariant): its
	// deepest live node, or its fork depth when it owns none yet.
	p.headDepth = a.Branches[p.branchIndex[a.HeadBranch]].ForkDepth
	if d, ok := tip[a.HeadBranch]; ok && d > p.headDepth {
		p.headDepth = d
	}
	return p, nil
}

// writeBundle writes a checked bundle as a new adventure of userID and
// returns its id.
func (s *Service) writeBundle(ctx context.Context, tx *models.Store, userID int64, c CheckedBundle) (int64, error) {
	a, p := &c.bundle.Adventure, c.plan
	now := s.now()
	adv := models.Adventure{UserID: userID, Title: a.Title, Premise: a.Premise, PlotEssentials: a.PlotEssentials,
		AIInstructions: a.AIInstructions, AuthorsNote: a.AuthorsNote, StatSchema: mustJSON(a.StatSchema),
		ScriptLibrary: a.Scripts.Library, ScriptInput: a.Scripts.Input, ScriptContext: a.Scripts.Context, ScriptOutput: a.Scripts.Output,
		PersonaName: a.PersonaName, PersonaPronouns: a.PersonaPronouns, PersonaDesc: a.PersonaDesc, Summary: a.Summary,
		CreatedAt: now, UpdatedAt: now}
	if err := tx.CreateAdventure(ctx, &adv); err != nil {
		return 0, err
	}
	// Branches: the lineage is derived from the parent as a fork's is, never
	// read from the file.
	branchID := map[int]int64{}
	rows := make([]*models.Branch, len(a.Branches))
	for i, br := range a.Branches {
		row := &models.Branch{AdventureID: adv.ID, ForkDepth: br.ForkDepth, Lineage: "[]", Name: br.Name, CreatedAt: now}
		if i > 0 {
			parent := rows[p.branchIndex[br.Parent]]
			row.ParentBranchID, row.Lineage = &parent.ID, forkLineage(parent, br.ForkDepth)
		}
		if err := tx.CreateBranch(ctx, row); err != nil {
			return 0, err
		}
		rows[i], branchID[br.Ref] = row, row.ID
	}
	// Nodes are written in batches without their parents (a parent's id is
	// known only once it is written), then linked in batches: a long story is
	// a few dozen statements, not a statement per take.
	var nodes []models.Action
	var refs []int
	for _, t := range a.Turns {
		for _, n := range t.Takes {
			nodes = append(nodes, models.Action{AdventureID: adv.ID, BranchID: branchID[n.Branch], Depth: n.Depth, Live: n.Live,
				Kind: n.Kind, Mode: n.Mode, Text: n.Text, TokenCount: countTokens(storyLine(n.Kind, n.Mode, n.Text)),
				WorldStateAfter: mustJSON(orEmpty(n.WorldState)), ScriptStateAfter: mustJSON(orEmpty(n.ScriptState)),
				Outcomes: mustJSON(orNone(n.Outcomes)), FinishReason: n.FinishReason, Truncated: n.Truncated, Stopped: n.Stopped, CreatedAt: now})
			refs = append(refs, n.Ref)
		}
	}
	if err := tx.CreateActions(ctx, nodes); err != nil {
		return 0, err
	}
	nodeID := map[int]int64{}
	for i, ref := range refs {
		nodeID[ref] = nodes[i].ID
	}
	if err := s.failpoint("bundle.after_nodes"); err != nil {
		return 0, err
	}
	parents := map[int64]int64{}
	for _, t := range a.Turns {
		if t.Parent == 0 {
			continue
		}
		for _, n := range t.Takes {
			parents[nodeID[n.Ref]] = nodeID[t.Parent]
		}
	}
	if err := tx.SetActionParents(ctx, parents); err != nil {
		return 0, err
	}
	cards := make([]models.AdventureCard, len(a.Cards))
	for i, c := range a.Cards {
		cards[i] = models.AdventureCard{AdventureID: adv.ID, PlayerAuthored: c.PlayerAuthored, Disabled: c.Disabled, Position: i, Title: c.Title,
			Keys: mustJSON(c.Keys), Entry: c.Entry, Type: c.Type, Description: c.Description, CardRules: c.rules(), CreatedAt: now, UpdatedAt: now}
		if c.Origin != 0 {
			id := nodeID[c.Origin]
			cards[i].OriginActionID = &id
		}
	}
	if err := tx.CreateAdventureCards(ctx, cards); err != nil {
		return 0, err
	}
	for _, m := range a.Memories {
		row := models.Memory{AdventureID: adv.ID, BranchID: branchID[m.Branch], Depth: m.Depth, FromDepth: m.FromDepth, Kind: m.Kind,
			Text: m.Text, Pinned: m.Pinned, Forgotten: m.Forgotten, Stale: m.Stale, CreatedAt: now, UpdatedAt: now}
		if err := tx.CreateMemory(ctx, &row); err != nil {
			return 0, err
		}
	}
	return adv.ID, tx.UpdateAdventure(ctx, adv.ID, map[string]any{"head_branch_id": branchID[a.HeadBranch], "head_depth": p.headDepth})
}

func orEmpty[M ~map[string]any](m M) M {
	if m == nil {
		return M{}
	}
	return m
}

func orNone(o []Outcome) []Outcome {
	if o == nil {
		return []Outcome{}
	}
	return o
}
