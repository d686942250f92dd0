package imports

import (
	"archive/zip"
	"bytes"
	"io"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// zipSignature opens a zip archive's first local file header. A CHARX file,
// Character Card V3's container, is a zip holding card.json and the card's
// assets.
var zipSignature = []byte("PK\x03\x04")

// charxCard is the card's name inside a CHARX file.
const charxCard = "card.json"

// parseCHARX reads the card.json of a CHARX file as the JSON card it is
// (whose own "assets" list, reported as not mapped, names the rest). Only
// card.json is inflated, and never past MaxFileBytes whatever its header
// claims; the assets (pictures, sounds) are not read.
func parseCHARX(data []byte) (Preview, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Preview{}, apperr.Wrap(err, apperr.InvalidRequest, "The file is not a readable zip archive.")
	}
	var card *zip.File
	for _, f := range zr.File {
		if f.Name == charxCard {
			card = f
			break
		}
	}
	if card == nil {
		e := apperr.E(apperr.ImportFormatUnsupported, "The archive holds no %s, so it is not a CHARX character card.", charxCard)
		e.Details = map[string]any{"format": "zip"}
		return Preview{}, e
	}
	raw, err := readZipped(card, MaxFileBytes)
	if err != nil {
		return Preview{}, err
	}
	return parseJSON(raw)
}

// readZipped inflates f, refusing more than limit bytes.
func readZipped(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidRequest, "The archive's %s cannot be read.", f.Name)
	}
	defer rc.Close()
	raw, err := io.ReadAll(io.LimitReader(rc, limit+1))
	switch {
	case err != nil:
		return nil, apperr.Wrap(err, apperr.InvalidRequest, "The archive's %s is damaged.", f.Name)
	case int64(len(raw)) > limit:
		return nil, tooLarge("The archive's "+f.Name+" unpacked", limit)
	}
	return raw, nil
}
