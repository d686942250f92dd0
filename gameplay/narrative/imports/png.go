package imports

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"strings"

	"github.com/adventure-table/adventure-table/models/apperr"
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// pngText returns the tEXt chunks of a PNG by lower-cased keyword (the first
// of each). It reads chunk headers only; the picture is never decoded.
func pngText(data []byte) map[string]string {
	out := map[string]string{}
	rest := data[len(pngSignature):]
	for len(rest) >= 12 {
		n := binary.BigEndian.Uint32(rest[:4])
		typ := string(rest[4:8])
		if uint64(n)+12 > uint64(len(rest)) {
			break
		}
		body := rest[8 : 8+n]
		if typ == "tEXt" {
			if i := bytes.IndexByte(body, 0); i > 0 {
				k := strings.ToLower(string(body[:i]))
				if _, seen := out[k]; !seen {
					out[k] = string(body[i+1:])
				}
			}
		}
		if typ == "IEND" {
			break
		}
		rest = rest[12+n:]
	}
	return out
}

// parsePNG reads a character card (ccv3 preferred to chara, as SillyTavern
// does) or a NovelAI lorebook (naidata) from a PNG's text chunks.
func parsePNG(data []byte) (Preview, error) {
	chunks := pngText(data)
	for _, k := range []string{"ccv3", "chara", "naidata"} {
		text, ok := chunks[k]
		if !ok {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
		if err != nil {
			e := apperr.Wrap(err, apperr.InvalidRequest, "The picture's %q text is not base64.", k)
			e.Details = map[string]any{"chunk": k}
			return Preview{}, e
		}
		p, err := parseJSON(raw)
		if err != nil {
			return Preview{}, err
		}
		return p, nil
	}
	return Preview{}, apperr.E(apperr.ImportPNGWithoutCard, "The picture holds no character card (no chara or ccv3 text chunk).")
}
