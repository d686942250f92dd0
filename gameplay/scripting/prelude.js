// Host prelude: runs (strict mode, from bytecode) in every fresh runtime,
// ahead of time (see Sandbox.fill). It removes qjs's host helpers and
// defines three hidden, read-only functions for the host:
//   __aidSetup()      per call: turns the JSON in globalThis.__aidIn into AI
//                     Dungeon's globals, right before the scenario's script;
//   __aidFail(e)      called by the catch wrapped around the script;
//   __aidCollect(ret) called by the host afterwards; returns JSON.
(function (g) {
  "use strict";
  // qjs gives every runtime std/os/bjson, timers and a print that writes to
  // the host's stdout. Scripts on AI Dungeon have none of these; the
  // filesystem is unreachable anyway (see vm.go), this just keeps scripts
  // from finding them by accident. import('qjs:std') still works and is
  // covered by the isolation tests.
  for (const name of ["std", "os", "bjson", "setTimeout", "setInterval", "clearTimeout",
    "clearInterval", "gc", "print", "scriptArgs", "navigator"]) {
    Reflect.deleteProperty(g, name);
  }

  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const isArray = Array.isArray;
  const toStr = String;
  const str = (v) => (v === undefined || v === null ? "" : typeof v === "string" ? v : toStr(v));
  const isObject = (v) => v !== null && typeof v === "object" && !isArray(v);

  Object.defineProperty(g, "__aidSetup", { value: setup });
  function setup() {
    const input = parse(g.__aidIn);
    delete g.__aidIn;

    let state = input.state;
    if (!isObject(state)) state = {};
    // Scripts write state.memory.context = "…" without checking it exists.
    if (!isObject(state.memory)) state.memory = {};

    // state.message may be a string or the older {text} / [{text}] shapes.
    const messageText = (m) => {
      if (typeof m === "string") return m;
      if (isArray(m)) return m.map(messageText).filter((s) => s !== "").join("\n");
      if (m !== null && typeof m === "object") return str(m.text);
      return "";
    };
    const previousMessage = messageText(state.message);

    const cards = input.storyCards;
    // rawText is AI Dungeon's older name for text; the host sends both.
    const history = input.history.map((h) => ({ text: h.text, type: h.type, rawText: h.rawText ?? h.text }));

    // Plain assignments make ordinary writable, configurable globals, which is
    // what scripts that polyfill or replace them (globalThis.state ??= …,
    // state = {…}) expect.
    g.text = input.text;
    g.stop = false;
    g.state = state;
    g.history = history;
    g.storyCards = cards;
    g.worldInfo = cards;
    g.info = input.info;

    // Console. Every call records one line: the arguments joined by spaces,
    // a string as it is (log("x") shows x, like a browser console), anything
    // else JSON-serialised (undefined as null). Bounded because the host
    // persists the console with the turn.
    const maxLogLines = input.limits.logLines;
    const maxLogLine = input.limits.logLineChars;
    const logs = [];
    let logsDropped = false;
    const serialise = (v) => {
      if (typeof v === "string") return v;
      if (v === undefined) return "null";
      try {
        const s = stringify(v);
        return s === undefined ? "null" : s;
      } catch (e) {
        try {
          return toStr(v);
        } catch (e2) {
          return "[unserialisable value]";
        }
      }
    };
    const log = function log(...args) {
      if (logs.length >= maxLogLines) {
        logsDropped = true;
        return;
      }
      let line = args.length <= 1 ? serialise(args[0]) : args.map(serialise).join(" ");
      if (line.length > maxLogLine) line = line.slice(0, maxLogLine) + "…[truncated]";
      logs.push(line);
    };
    g.log = log;
    g.console = { log, info: log, warn: log, error: log, debug: log, trace: log };
    g.sandboxConsole = { log };

    // Story cards. The functions act on whatever array the storyCards global
    // holds now, since scripts may replace it.
    const now = input.now;
    // A priority as the host stores it: an integer within ±1,000,000.
    const cardPriority = (p) => {
      const n = Number(p);
      return Number.isFinite(n) ? Math.max(-1000000, Math.min(1000000, Math.trunc(n))) : 0;
    };
    const currentCards = () => (isArray(g.storyCards) ? g.storyCards : isArray(g.worldInfo) ? g.worldInfo : cards);
    const cardAt = (name, index) => {
      const list = currentCards();
      const card = list[index];
      if (card === null || typeof card !== "object") {
        throw new Error("Story card not found at index " + toStr(index) + " in " + name);
      }
      return { list, card };
    };
    const addStoryCard = function addStoryCard(keys, entry, type, title, description, options) {
      // The extended form passes {returnCard:true} last; accept it after the
      // type, title or description.
      const args = [keys, entry, type, title, description, options];
      let returnCard = false;
      for (let i = 3; i < args.length; i++) {
        if (args[i] !== null && typeof args[i] === "object") {
          returnCard = args[i].returnCard === true;
          args.length = i;
          break;
        }
      }
      const list = currentCards();
      const k = str(args[0]);
      for (const existing of list) {
        if (existing !== null && typeof existing === "object" && existing.keys === k) return false;
      }
      const card = {
        id: "",
        keys: k,
        entry: str(args[1]),
        type: args[2] === undefined || args[2] === null || args[2] === "" ? "Custom" : str(args[2]),
        title: args[3] === undefined || args[3] === null ? k : str(args[3]),
        description: str(args[4]),
        createdAt: now,
        updatedAt: now,
        secondaryKeys: "",
        logic: "",
        constant: false,
        priority: 0,
      };
      // Upstream returns the new index: the first card gives 0, which is
      // falsy, and scripts written against AI Dungeon cope with that.
      const index = list.push(card) - 1;
      return returnCard ? card : index;
    };
    const removeStoryCard = function removeStoryCard(index) {
      const { list } = cardAt("removeStoryCard", index);
      list.splice(Number(index), 1);
    };
    const updateStoryCard = function updateStoryCard(index, keys, entry, type) {
      const { card } = cardAt("updateStoryCard", index);
      if (keys !== undefined) card.keys = str(keys);
      if (entry !== undefined) card.entry = str(entry);
      if (type !== undefined) card.type = str(type);
      card.updatedAt = now;
    };
    g.addStoryCard = addStoryCard;
    g.removeStoryCard = removeStoryCard;
    g.updateStoryCard = updateStoryCard;
    g.addWorldEntry = addStoryCard;
    g.removeWorldEntry = removeStoryCard;
    g.updateWorldEntry = updateStoryCard;

    let failure = null;
    const describe = (e) => {
      let message, stack = "";
      try {
        message = toStr(e);
      } catch (e2) {
        message = "[an exception that cannot be printed]";
      }
      try {
        if (e !== null && typeof e === "object" && typeof e.stack === "string") stack = e.stack;
      } catch (e2) {}
      return { message, stack };
    };
    Object.defineProperty(g, "__aidFail", {
      value: function (e) {
        failure = describe(e);
      },
    });

    // collect interprets the hook's result and serialises everything the host
    // reads back. ret is the completion value of the script.
    const collect = function (ret) {
      if (failure !== null) return stringify({ error: failure, logs, logsDropped });
      try {
        let r = ret;
        let calledModifier = false;
        // Hooks that end in `void 0` rely on the host calling the modifier
        // the Library defined (MagicCards does this). Skip it when the script
        // visibly ended by calling modifier itself, so a modifier that
        // returns nothing does not run twice.
        if (r === undefined && typeof g.__aidModifier === "function" && !input.endsWithModifierCall) {
          r = g.__aidModifier(g.text);
          calledModifier = true;
        }
        let text = g.text;
        let stop = g.stop === true;
        if (typeof r === "string") {
          text = r;
        } else if (r !== null && typeof r === "object") {
          if (r.text === null) text = "";
          else if (r.text !== undefined) text = r.text;
          if (Object.prototype.hasOwnProperty.call(r, "stop")) stop = r.stop === true;
        }
        text = str(text);
        if (text === "stop") stop = true;

        const s = g.state;
        if (s === undefined || s === null) {
          throw new TypeError("state must be an object, the script set it to " + toStr(s));
        }
        if (!isObject(s)) throw new TypeError("state must be an object, not " + (isArray(s) ? "an array" : typeof s));
        const mem = isObject(s.memory) ? s.memory : {};
        const memStr = (v) => (typeof v === "string" ? v : "");
        const message = messageText(s.message);

        const list = g.storyCards !== cards ? g.storyCards : g.worldInfo !== cards ? g.worldInfo : cards;
        if (!isArray(list)) throw new TypeError("storyCards must be an array");
        const outCards = [];
        for (const c of list) {
          if (c === null || typeof c !== "object") continue;
          outCards.push({
            id: str(c.id),
            keys: str(c.keys),
            entry: str(c.entry),
            type: str(c.type),
            title: str(c.title),
            description: str(c.description),
            createdAt: str(c.createdAt),
            updatedAt: str(c.updatedAt),
            // Rules a script leaves out (undefined) keep what the card had.
            secondaryKeys: c.secondaryKeys === undefined ? undefined : str(c.secondaryKeys),
            logic: c.logic === undefined ? undefined : str(c.logic),
            constant: c.constant === undefined ? undefined : c.constant === true,
            priority: c.priority === undefined ? undefined : cardPriority(c.priority),
          });
        }
        return stringify({
          text,
          stop,
          calledModifier,
          state: s,
          storyCards: outCards,
          memory: { context: memStr(mem.context), authorsNote: memStr(mem.authorsNote), frontMemory: memStr(mem.frontMemory) },
          message: message !== previousMessage ? message : "",
          logs,
          logsDropped,
        });
      } catch (e) {
        return stringify({ error: describe(e), logs, logsDropped });
      }
    };
    Object.defineProperty(g, "__aidCollect", { value: collect });
  }
})(globalThis);
