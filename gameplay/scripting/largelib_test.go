package scripting_test

import (
	"fmt"
	"strings"
)

// largeLibrary generates a Library of about size bytes shaped like the big
// public ones (Auto-Cards, Inner Self: ~0.7 KB of commented code per
// function, about a dozen classes): one namespace function holding many
// helpers (string munging, regexes, Maps, classes with private fields, JSON
// config kept in cards),
// top-level tables, and a dispatcher the hook calls. Generated rather than
// checked in: their code is not ours to copy.
func largeLibrary(size int) string {
	var b strings.Builder
	b.WriteString(`// Generated compatibility library.
const LIB_VERSION = "1.0.0";
const LIB_DEFAULTS = Object.freeze({ minWord: 3, maxCards: 40, cooldown: 4, marker: "%@%" });
function Lib(hook, inText) {
  "use strict";
  const helpers = {};
  const cfg = Object.assign({}, LIB_DEFAULTS, (state.libConfig ??= {}));
`)
	templates := []string{
		`  /**
   * Counts the words of the input and returns the most frequent one that is
   * long enough to be a name or a noun worth remembering (variant %[1]d).
   * @param {string} input - Text to scan
   * @param {Object} options - {min} overrides the minimum word length
   * @returns {Object} {best, bestCount, total}
   */
  helpers.words%[1]d = function words%[1]d(input, options) {
    const words = String(input ?? "").split(/\s+/).filter(Boolean);
    const counts = new Map();
    for (const w of words) {
      // Strip punctuation but keep apostrophes and hyphens inside names
      const k = w.toLowerCase().replace(/[^a-z0-9'-]/g, "");
      if (k.length < (options?.min ?? cfg.minWord)) {
        continue;
      }
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    let best = "";
    let bestCount = 0;
    for (const [w, c] of counts) {
      // Ties go to the alphabetically first word so results are stable
      if ((c > bestCount) || ((c === bestCount) && (w < best))) {
        best = w;
        bestCount = c;
      }
    }
    return { best, bestCount, total: words.length, tag: "words%[1]d" };
  };
`,
		`  /**
   * A remembered character (variant %[1]d). Memories are trimmed so the
   * state stays small; the summary is what ends up in a story card.
   */
  class Agent%[1]d {
    #memory = [];
    constructor(name, traits = []) {
      this.name = String(name);
      this.traits = traits.slice(0, 8).map((t) => String(t).trim()).filter(Boolean);
      this.created = Date.now();
    }
    remember(line) {
      this.#memory.push(String(line).slice(0, 200));
      while (this.#memory.length > 16) {
        this.#memory.shift();
      }
      return this;
    }
    recall(pattern) {
      const re = new RegExp(pattern, "i");
      return this.#memory.filter((m) => re.test(m));
    }
    get summary() {
      return this.name + " (" + this.traits.join(", ") + "): " + this.#memory.length + " memories";
    }
  }
  helpers.agent%[1]d = (name, traits) => new Agent%[1]d(name, traits);
`,
		`  /**
   * Finds the story card titled title and appends entry to it, keeping only
   * the last few lines; falls back to reading the config card (variant %[1]d).
   * @returns {number} The card's index, or a config-derived number
   */
  helpers.cards%[1]d = function cards%[1]d(title, entry) {
    const found = storyCards.findIndex((c) => c && (c.title === title));
    if (found !== -1) {
      const card = storyCards[found];
      // Keep the newest lines only, like a rolling memory
      card.entry = (card.entry + "\n" + entry).split("\n").slice(-cfg.cooldown).join("\n");
      card.updatedAt = new Date().toISOString();
      return found;
    }
    const parsed = (() => {
      try {
        return JSON.parse(storyCards[0]?.description || "{}");
      } catch (error) {
        log("bad config: " + error.message);
        return {};
      }
    })();
    if ((parsed === null) || (typeof parsed !== "object")) {
      return -1;
    }
    return Object.keys(parsed).length + %[1]d;
  };
`,
		`  /**
   * Formats a list for prose: unique, trimmed, "a, b and c" (variant %[1]d).
   * Zero-width characters that other scripts use as markers are dropped.
   */
  helpers.format%[1]d = function format%[1]d(list, sep = ", ") {
    const items = Array.from(list ?? [], (x) => (typeof x === "string") ? x.trim() : JSON.stringify(x));
    const unique = [...new Set(items)].filter((s) => (s !== "") && !/^[\u200B-\u200D]*$/.test(s));
    const last = unique.at(-1);
    let text;
    if (unique.length > 1) {
      text = unique.slice(0, -1).join(sep) + " and " + last;
    } else {
      text = last ?? "";
    }
    // Collapse doubled spaces and spaces before punctuation
    return text.replace(/\s{2,}/g, " ").replace(/ ([,.;:!?])/g, "$1");
  };
  /**
   * Dice-coefficient similarity of two strings over letter pairs, used to
   * match names typed by the player against card titles.
   */
  helpers.score%[1]d = function score%[1]d(a, b) {
    a = String(a).toLowerCase();
    b = String(b).toLowerCase();
    if (a === b) {
      return 1;
    }
    const grams = (s) => {
      const m = new Map();
      for (let i = 0; i < (s.length - 1); i++) {
        const g = s.slice(i, i + 2);
        m.set(g, (m.get(g) ?? 0) + 1);
      }
      return m;
    };
    const ga = grams(a);
    const gb = grams(b);
    let hit = 0;
    for (const [g, n] of ga) {
      hit += Math.min(n, gb.get(g) ?? 0);
    }
    return (2 * hit) / Math.max(1, a.length + b.length - 2);
  };
`,
		`  // Places the narrator may mention when the player travels (variant %[1]d)
  const table%[1]d = [
    { key: "north-%[1]d", text: "The northern road winds past the old mill where the river bends toward the hills." },
    { key: "south-%[1]d", text: "A market square full of lanterns, spice sellers and a fountain that no longer runs." },
    { key: "east-%[1]d", text: "Salt marshes, reed huts on stilts, and a lighthouse whose keeper never sleeps." },
    { key: "west-%[1]d", text: "Pine forest, a ranger's lodge, and tracks that circle back on themselves at dusk." },
  ];
  helpers.place%[1]d = function place%[1]d(query) {
    const q = String(query ?? "").toLowerCase();
    const hit = table%[1]d.find((p) => p.key.startsWith(q) || p.text.toLowerCase().includes(q));
    return hit ?? table%[1]d[%[1]d %% table%[1]d.length];
  };
`,
	}
	// Real libraries of this size define about a dozen classes, so the class
	// template (index 1) is used once in 40 helpers.
	functions := append([]string{templates[0]}, templates[2:]...)
	for i := 0; b.Len() < size-2000; i++ {
		t := functions[i%len(functions)]
		if i%40 == 1 {
			t = templates[1]
		}
		fmt.Fprintf(&b, t, i)
	}
	b.WriteString(`  const names = Object.keys(helpers);
  const pick = (i) => helpers[names[i % names.length]];
  switch (hook) {
    case "input": return { text: inText, helpers: names.length, probe: typeof pick(0) };
    case "context": return { text: inText.slice(-(info.maxChars ?? inText.length)), helpers: names.length };
    default: return { text: inText, helpers: names.length };
  }
}
globalThis.LibHelpersLoaded = true;
`)
	return b.String()
}
