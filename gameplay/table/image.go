package table

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/webp"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// Stage image limits.
const (
	MaxStageImageBytes = 10 << 20
	// maxStagePixels is checked from the header, before any full decode: a
	// tiny crafted file can declare a huge canvas and make a decoder
	// allocate gigabytes.
	maxStagePixels = 16_000_000
)

type imageFormat struct {
	mime         string
	magic        func([]byte) bool
	decodeConfig func([]byte) (image.Config, error)
	decode       func([]byte) (image.Image, error)
}

var stageFormats = []imageFormat{
	{"image/png", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) },
		func(b []byte) (image.Config, error) { return png.DecodeConfig(bytes.NewReader(b)) },
		func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }},
	{"image/jpeg", func(b []byte) bool { return bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}) },
		func(b []byte) (image.Config, error) { return jpeg.DecodeConfig(bytes.NewReader(b)) },
		func(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) }},
	{"image/webp", func(b []byte) bool { return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" },
		func(b []byte) (image.Config, error) { return webp.DecodeConfig(bytes.NewReader(b)) },
		func(b []byte) (image.Image, error) { return webp.Decode(bytes.NewReader(b)) }},
}

// inspectImage decides what an uploaded stage image is from its content
// alone: PNG, JPEG or WebP by magic bytes, then a header decode with the
// pixel cap, then a full decode to refuse corrupt files. File names and
// client MIME types are never consulted; SVG, HTML and everything else are
// refused. Returns stage_image_too_large or stage_image_invalid.
func inspectImage(data []byte) (mime string, width, height int, err error) {
	if len(data) > MaxStageImageBytes {
		return "", 0, 0, apperr.E(apperr.StageImageTooLarge, "A stage image is at most 10 MiB.").WithDetail("max_bytes", MaxStageImageBytes)
	}
	for _, f := range stageFormats {
		if !f.magic(data) {
			continue
		}
		cfg, err := f.decodeConfig(data)
		if err != nil {
			return "", 0, 0, apperr.Wrap(err, apperr.StageImageInvalid, "The image could not be read.")
		}
		if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxStagePixels {
			return "", 0, 0, apperr.E(apperr.StageImageInvalid, "The image is %dx%d; at most %d pixels are allowed.", cfg.Width, cfg.Height, maxStagePixels).
				WithDetail("max_pixels", maxStagePixels)
		}
		if _, err := f.decode(data); err != nil {
			return "", 0, 0, apperr.Wrap(err, apperr.StageImageInvalid, "The image is damaged.")
		}
		return f.mime, cfg.Width, cfg.Height, nil
	}
	return "", 0, 0, apperr.E(apperr.StageImageInvalid, "Stage images must be PNG, JPEG or WebP.")
}
