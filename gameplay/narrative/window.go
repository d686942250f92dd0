package narrative

import (
	"context"
	"slices"

	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
)

// firstWindow is how many nodes the history reader fetches first.
const firstWindow = 32

// historyWindow returns the newest part of a line that covers the budget
// in tokens, oldest first (seed §2.2). It measures the first window's real
// token count and, when that falls short, projects how many more nodes it
// needs from the measured average instead of doubling; each round fetches
// only rows it does not hold yet, so no row is read twice and the cost is
// bounded by the budget, not by the story's length. budget is asked once
// the first window is read (the lore, which comes out of the story's share,
// depends on the newest turns only). skip excludes the turn being retried.
func historyWindow(ctx context.Context, store *models.Store, line []models.LineSegment, skip []int64, budget func(newest []storyTurn) (int, error)) ([]storyTurn, error) {
	var turns []storyTurn // newest first while reading
	tokens := 0
	want := firstWindow
	limit := -1
	for {
		rows, err := store.LineTail(ctx, models.LineQuery{Line: line, SkipIDs: skip, Limit: want, Offset: len(turns), StoryOnly: true})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			text := storyLine(r.Kind, r.Mode, r.Text)
			n := r.TokenCount
			if n <= 0 {
				n = countTokens(text)
			}
			turns = append(turns, storyTurn{Turn: prompt.Turn{ID: r.ID, Kind: r.Kind, Text: text, Tokens: n}, Mode: r.Mode})
			tokens += n
		}
		if limit < 0 {
			newest := slices.Clone(turns)
			slices.Reverse(newest)
			if limit, err = budget(newest); err != nil {
				return nil, err
			}
		}
		if len(rows) < want || tokens >= limit {
			break
		}
		average := float64(tokens) / float64(len(turns))
		// A 5% margin: a round that still falls short reads again, which
		// costs a statement; reading 15% more cost 13% of the bytes.
		projected := int(float64(limit)/max(average, 1)*1.05) + 4
		want = max(projected-len(turns), 8)
	}
	slices.Reverse(turns)
	return turns, nil
}

// storyTurn is a turn of the window with its mode (do, say, story,
// continue), which scripts see as the action's type.
type storyTurn struct {
	prompt.Turn
	Mode string
}

func promptTurns(turns []storyTurn) []prompt.Turn {
	out := make([]prompt.Turn, len(turns))
	for i, t := range turns {
		out[i] = t.Turn
	}
	return out
}

// storyLine is how a stored node reads in the story the model and the
// scripts see: a player's action is stored as typed and read as a line of
// the story (its cached token count is taken on this form).
func storyLine(kind, mode, text string) string {
	if kind == models.ActionPlayer {
		return playerLine(mode, text)
	}
	return text
}
