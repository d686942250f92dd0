package table

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// FuzzParseInput: any typed line parses to a known kind or a stable error;
// never a panic, never an unknown kind.
func FuzzParseInput(f *testing.F) {
	for _, seed := range []string{"hello", "/action draw", "/search", "/check perception look", "/check", "/CHECK dex",
		"/whisper psst", "/ooc", "/dance", "/", "  /action  x  ", "/check \x00", "/search\tthe door",
		"/r 1d20+5", "/roll", "/gmroll 4d6dl1", "/r perception", "/R Sleight of Hand", "/roll dexterity", "/r [[1d4]]", "/gmroll  WIS ",
		"/r attack longsword", "/r DAMAGE 2", "/r attack", "/r damage  ", "/check dex save 15", "/check Dexterity saving throw x",
		"/check sleight of hand 12", "/check save", "/check con_save", "/npc Guard captain: Halt!", "/npc", "/npc :", "/npc Guard:",
		"/npc a:b:c", "/NPC  x :  y "} {
		f.Add(seed)
	}
	known := map[string]bool{KindSay: true, "action": true, "ooc": true, "whisper_dm": true, KindRoll: true, "narration": true}
	f.Fuzz(func(t *testing.T, line string) {
		cmd, err := ParseInput(line)
		if err != nil {
			switch apperr.CodeOf(err) {
			case apperr.UnknownCommand, apperr.MessageTextInvalid:
				return
			}
			t.Fatalf("%q: unexpected error %v", line, err)
		}
		if !known[cmd.Kind] {
			t.Fatalf("%q parsed to kind %q", line, cmd.Kind)
		}
		if cmd.Kind == KindRoll {
			if n := btoi(cmd.Formula != "") + btoi(cmd.Check != "") + btoi(cmd.Attack != ""); n != 1 || (cmd.Check != "" && !isCheckable(cmd.Check)) || (cmd.Damage && cmd.Attack == "") {
				t.Fatalf("%q: a roll of formula %q, check %q, attack %q (damage %v)", line, cmd.Formula, cmd.Check, cmd.Attack, cmd.Damage)
			}
			if cmd.Private != strings.EqualFold(strings.Fields(line)[0], "/gmroll") {
				t.Fatalf("%q: private=%v", line, cmd.Private)
			}
		}
		if cmd.Kind != KindRoll && (cmd.Formula != "" || cmd.Private || cmd.Attack != "") {
			t.Fatalf("%q: a %s carries roll fields", line, cmd.Kind)
		}
		// only /npc names a speaker, and it always does, trimmed, with
		// something said
		if (cmd.Speaker != "") != (cmd.Kind == "narration") || cmd.Speaker != strings.TrimSpace(cmd.Speaker) ||
			cmd.Speaker != "" && strings.TrimSpace(cmd.Text) == "" {
			t.Fatalf("%q: speaker %q of a %s saying %q", line, cmd.Speaker, cmd.Kind, cmd.Text)
		}
		if cmd.Intent == IntentCheck && !isCheckable(cmd.Check) {
			t.Fatalf("%q: check of %q accepted", line, cmd.Check)
		}
		if cmd.Kind == KindSay && strings.HasPrefix(strings.TrimSpace(line), "/") {
			t.Fatalf("%q: a slash line became plain speech", line)
		}
		if utf8.ValidString(line) && !utf8.ValidString(cmd.Text) {
			t.Fatalf("%q: text became invalid UTF-8", line)
		}
	})
}

// FuzzInspectImage: arbitrary bytes never panic or allocate past the pixel
// cap, and anything accepted is an allowed type within the limits.
func FuzzInspectImage(f *testing.F) {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2)))
	f.Add(b.Bytes())
	f.Add([]byte{0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'J', 'F', 'I', 'F'})
	f.Add([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"))
	f.Add([]byte("<svg/>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		mime, w, h, err := inspectImage(context.Background(), data)
		if err != nil {
			switch apperr.CodeOf(err) {
			case apperr.StageImageInvalid, apperr.StageImageTooLarge:
				return
			}
			t.Fatalf("unexpected error %v", err)
		}
		if mime != "image/png" && mime != "image/jpeg" && mime != "image/webp" {
			t.Fatalf("accepted %q", mime)
		}
		if w <= 0 || h <= 0 || int64(w)*int64(h) > maxStagePixels {
			t.Fatalf("accepted %dx%d", w, h)
		}
		for _, f := range stageFormats {
			if f.mime == mime && f.cost(data, w, h)+decoderState > maxDecodeBytes {
				t.Fatalf("accepted %dx%d %s over the decode budget", w, h, mime)
			}
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
