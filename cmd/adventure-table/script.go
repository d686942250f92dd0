package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/scripting"
)

// scriptTestInput is what `script test --input` takes: the globals a hook
// sees, in the names scripts use.
type scriptTestInput struct {
	Text       string                   `json:"text"`
	State      json.RawMessage          `json:"state"`
	History    []scripting.HistoryEntry `json:"history"`
	StoryCards []scripting.Card         `json:"storyCards"`
	Info       struct {
		ActionCount    int      `json:"actionCount"`
		MaxChars       int      `json:"maxChars"`
		MemoryLength   int      `json:"memoryLength"`
		CharacterNames []string `json:"characterNames"`
		// Characters is the older name of characterNames. Scripts see one
		// list under both names, so a file may give either (or both, equal).
		Characters []characterName `json:"characters"`
	} `json:"info"`
}

// characterName is one entry of info.characters: a name, or {"name": …} as
// AI Dungeon's older documentation shows it.
type characterName string

func (c *characterName) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err == nil {
		*c = characterName(name)
		return nil
	}
	var obj struct {
		Name *string `json:"name"`
	}
	if err := json.Unmarshal(b, &obj); err != nil || obj.Name == nil {
		return errors.New(`info.characters: each entry must be a name or {"name": "…"}`)
	}
	*c = characterName(*obj.Name)
	return nil
}

// characterNames merges info.characterNames and info.characters.
func (in *scriptTestInput) characterNames() ([]string, error) {
	names := in.Info.CharacterNames
	if len(in.Info.Characters) == 0 {
		return names, nil
	}
	chars := make([]string, len(in.Info.Characters))
	for i, c := range in.Info.Characters {
		chars[i] = string(c)
	}
	if len(names) > 0 && !slices.Equal(names, chars) {
		return nil, errors.New("info.characters and info.characterNames differ; scripts see one list under both names, so give one of them")
	}
	return chars, nil
}

// scriptTestOutput is what it prints.
type scriptTestOutput struct {
	Text       string           `json:"text"`
	Stop       bool             `json:"stop"`
	State      json.RawMessage  `json:"state"`
	StoryCards []scripting.Card `json:"storyCards"`
	Message    string           `json:"message"`
	Logs       []string         `json:"logs"`
	Error      *scripting.Error `json:"error"`
}

// runScriptCommand is `adventure-table script test`: it runs one hook
// exactly as a turn would (same sandbox, same limits) and prints the result
// as JSON, so scenario authors can test scripts without playing. Exit code
// 0 when the hook ran (even if the script failed: that is in "error"), 2 on
// bad arguments.
func runScriptCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "test" {
		fmt.Fprintln(stderr, "usage: adventure-table script test --hook input|context|output --script <file> [--library <file>] --input <json or file>")
		return 2
	}
	fs := flag.NewFlagSet("script test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hook := fs.String("hook", "", "input, context or output")
	scriptFile := fs.String("script", "", "the hook script file")
	libraryFile := fs.String("library", "", "the Library script file (optional)")
	inputArg := fs.String("input", "{}", `the hook's globals as JSON, or a file holding them: {"text", "state", "history", "storyCards", "info"}; history entries are {"text", "type", "rawText"}`)
	timeout := fs.Duration("timeout", time.Second, "time limit of the hook")
	memoryMB := fs.Int("memory-mb", 64, "memory limit of the hook in MiB")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "adventure-table script test: "+format+"\n", a...)
		return 2
	}
	if *hook != scripting.HookInput && *hook != scripting.HookContext && *hook != scripting.HookOutput {
		return fail("--hook must be input, context or output")
	}
	if *scriptFile == "" {
		return fail("--script is required")
	}
	script, err := os.ReadFile(*scriptFile)
	if err != nil {
		return fail("%v", err)
	}
	var library []byte
	if *libraryFile != "" {
		if library, err = os.ReadFile(*libraryFile); err != nil {
			return fail("%v", err)
		}
	}
	raw := []byte(*inputArg)
	if trimmed := strings.TrimSpace(*inputArg); !strings.HasPrefix(trimmed, "{") {
		if raw, err = os.ReadFile(*inputArg); err != nil {
			return fail("--input is neither a JSON object nor a readable file: %v", err)
		}
	}
	var in scriptTestInput
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return fail("--input: %v", err)
	}
	names, err := in.characterNames()
	if err != nil {
		return fail("--input: %v", err)
	}
	sandbox, err := scripting.New(scripting.Options{Timeout: *timeout, MemoryLimit: int64(*memoryMB) << 20})
	if err != nil {
		return fail("%v", err)
	}
	defer sandbox.Close()
	out := sandbox.Run(ctx, scripting.Input{Hook: *hook, Library: string(library), Script: string(script), Text: in.Text,
		State: in.State, History: in.History, Cards: in.StoryCards,
		Info: scripting.Info{ActionCount: in.Info.ActionCount, MaxChars: in.Info.MaxChars, MemoryLength: in.Info.MemoryLength, CharacterNames: names}})
	res := scriptTestOutput{Text: out.Text, Stop: out.Stop, State: json.RawMessage(out.State), StoryCards: out.Cards, Message: out.Message, Logs: out.Logs, Error: out.Error}
	if res.StoryCards == nil {
		res.StoryCards = []scripting.Card{}
	}
	if res.Logs == nil {
		res.Logs = []string{}
	}
	if len(res.State) == 0 {
		res.State = json.RawMessage("{}")
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return fail("%v", errors.Unwrap(err))
	}
	return 0
}
