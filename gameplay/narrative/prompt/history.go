package prompt

// history is the part of the window that made it into the prompt.
type history struct {
	turns     []Turn // oldest first; the newest may carry truncated text
	tokens    int
	truncated bool
}

// fitHistory fills budget backwards from the newest turn and stops at the
// first turn that does not fit. It does not skip to older, shorter turns: a
// gap in the story is worse than a shorter story, and older material lives on
// in the summary and memories. A newest turn too big on its own is
// hard-truncated to its end rather than dropped, because a prompt with no
// story produces nonsense.
func fitHistory(window []Turn, budget int) history {
	first, used := len(window), 0
	for i := len(window) - 1; i >= 0; i-- {
		cost := tokensOf(window[i])
		if cost > budget-used {
			break
		}
		used += cost
		first = i
	}
	if first == len(window) && len(window) > 0 {
		newest := window[len(window)-1]
		cut := keepEnd(newest.Text, budget)
		// A stale cached count can claim a turn is over budget when it is
		// not; then nothing was cut and nothing is reported.
		truncated := cut != newest.Text
		newest.Text, newest.Tokens = cut, Count(cut)
		return history{turns: []Turn{newest}, tokens: newest.Tokens, truncated: truncated}
	}
	return history{turns: window[first:], tokens: used}
}
