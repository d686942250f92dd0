package table

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/webp"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// Stage image limits. A decoder allocates the whole canvas before it reads
// a pixel, and a few hundred KiB of PNG, JPEG or WebP can declare a canvas
// that takes a gigabyte, so what a decode will allocate is worked out from
// the header (decodeCost) and capped before anything is decoded.
const (
	MaxStageImageBytes = 10 << 20
	// maxStagePixels caps width × height, whatever the format.
	maxStagePixels = 16_000_000
	// maxDecodeBytes caps what one decode may allocate: the canvas at the
	// bytes per pixel the decoder really uses. It fits a 16 MP photo (JPEG
	// 4:2:0, 24 MB) or a 4000×4000 8-bit RGBA PNG (64 MB); a 16-bit RGBA PNG
	// (8 bytes a pixel) must stay under 8.3 MP.
	maxDecodeBytes = 64 << 20
	// maxConcurrentDecodes bounds the full decodes running at once in this
	// process, so stage images never hold more than 2 × 64 MiB of decoded
	// pixels however many uploads arrive together. An upload waits for a
	// slot for as long as its request lives (a decode takes well under a
	// second), rather than failing on a busy moment.
	maxConcurrentDecodes = 2
	// decoderState is what a decoder holds besides the pixels and rows
	// (inflate window, Huffman tables): about 60 KB measured.
	decoderState = 256 << 10
)

// decodeSlots is the server-wide semaphore on full decodes.
var decodeSlots = make(chan struct{}, maxConcurrentDecodes)

type imageFormat struct {
	mime         string
	magic        func([]byte) bool
	decodeConfig func([]byte) (image.Config, error)
	// cost is what a full decode allocates, from the header only.
	cost   func(data []byte, width, height int) int64
	decode func([]byte) (image.Image, error)
}

var stageFormats = []imageFormat{
	{"image/png", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) },
		func(b []byte) (image.Config, error) { return png.DecodeConfig(bytes.NewReader(b)) }, pngCost,
		func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }},
	{"image/jpeg", func(b []byte) bool { return bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}) },
		func(b []byte) (image.Config, error) { return jpeg.DecodeConfig(bytes.NewReader(b)) }, jpegCost,
		func(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) }},
	{"image/webp", func(b []byte) bool { return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" },
		func(b []byte) (image.Config, error) { return webp.DecodeConfig(bytes.NewReader(b)) }, webpCost,
		func(b []byte) (image.Image, error) { return webp.Decode(bytes.NewReader(b)) }},
}

// inspectImage decides what an uploaded stage image is from its content
// alone: PNG, JPEG or WebP by magic bytes, then a header decode with the
// pixel and decode-memory caps, then a full decode (in one of the
// server's decode slots, waiting with ctx) to refuse truncated or corrupt
// files. File names and client MIME types are never consulted; SVG, HTML
// and everything else are refused. Returns stage_image_too_large,
// stage_image_invalid (details.max_pixels or details.max_decode_bytes for
// a canvas over the caps), or ctx's error while waiting for a slot.
func inspectImage(ctx context.Context, data []byte) (mime string, width, height int, err error) {
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
		if c := f.cost(data, cfg.Width, cfg.Height) + decoderState; c > maxDecodeBytes {
			return "", 0, 0, apperr.E(apperr.StageImageInvalid, "Decoded, this %dx%d image would take %d MiB; at most %d MiB are allowed (save it smaller, or at 8 bits per channel).",
				cfg.Width, cfg.Height, (c+1<<20-1)>>20, maxDecodeBytes>>20).
				WithDetail("decode_bytes", c).WithDetail("max_decode_bytes", maxDecodeBytes)
		}
		if err := decodeWithinSlots(ctx, f, data); err != nil {
			return "", 0, 0, err
		}
		return f.mime, cfg.Width, cfg.Height, nil
	}
	return "", 0, 0, apperr.E(apperr.StageImageInvalid, "Stage images must be PNG, JPEG or WebP.")
}

// decodeWithinSlots fully decodes data once a decode slot is free. The
// decode is the content check: only a decoder that reached the last pixel
// (and, for PNG, the checksums) knows the file is whole.
func decodeWithinSlots(ctx context.Context, f imageFormat, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case decodeSlots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-decodeSlots }()
	if _, err := f.decode(data); err != nil {
		return apperr.Wrap(err, apperr.StageImageInvalid, "The image is damaged.")
	}
	return nil
}

// pngCost follows image/png: gray and paletted images take 1 byte a pixel
// (2 at 16 bits), everything else becomes RGBA at 4 or 8 bytes, and so
// does gray with a tRNS chunk. An interlaced image also allocates its seven
// passes (together the size of the image again) before merging them. Two
// raw rows (this one and the one above, for the filters) come on top.
func pngCost(b []byte, width, height int) int64 {
	if len(b) < 29 {
		return int64(width) * int64(height) * 16 // unreachable after DecodeConfig: the worst case
	}
	depth, colorType, interlaced := b[24], b[25], b[28] == 1
	transparent := false
	// The chunks before the first IDAT decide the colour model.
	for i := 8; i+8 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		if typ == "IDAT" || n < 0 || n > len(b) {
			break
		}
		if typ == "tRNS" {
			transparent = true
		}
		i += 12 + n
	}
	var perPixel int64
	switch {
	case colorType == 3:
		perPixel = 1
	case colorType == 0 && !transparent:
		perPixel = 1
		if depth == 16 {
			perPixel = 2
		}
	case depth == 16:
		perPixel = 8
	default:
		perPixel = 4
	}
	cost := int64(width) * int64(height) * perPixel
	if interlaced {
		cost *= 2
	}
	channels := map[byte]int64{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colorType]
	return cost + 2*(1+(int64(width)*channels*int64(depth)+7)/8)
}

// jpegCost follows image/jpeg: every component's samples at one byte each
// over the MCU-padded canvas, four bytes a sample more for the coefficients
// a progressive image keeps until its last scan, and a 4-byte-a-pixel
// RGBA or CMYK copy for 4-component and RGB images. The whole file is
// walked because markers between scans count too; when in doubt about the
// RGB conversion (an Adobe transform 0 anywhere) the copy is counted.
func jpegCost(b []byte, width, height int) int64 {
	type comp struct{ id, h, v int }
	var comps []comp
	progressive, rgbHint := false, false
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xff {
			i++ // entropy-coded data between markers
			continue
		}
		m := b[i+1]
		switch {
		case m == 0xff:
			i++
			continue
		case m == 0x00 || m == 0x01 || m == 0xd8 || (m >= 0xd0 && m <= 0xd7):
			i += 2
			continue
		case m == 0xd9:
			i = len(b)
			continue
		}
		n := int(b[i+2])<<8 | int(b[i+3])
		if n < 2 || i+2+n > len(b) {
			break
		}
		seg := b[i+4 : i+2+n]
		switch {
		case (m == 0xc0 || m == 0xc1 || m == 0xc2) && comps == nil && len(seg) >= 6:
			progressive = m == 0xc2
			nc := int(seg[5])
			for k := 0; k < nc && 6+3*k+2 < len(seg); k++ {
				c := comp{id: int(seg[6+3*k]), h: int(seg[7+3*k] >> 4), v: int(seg[7+3*k] & 0x0f)}
				if nc == 1 {
					c.h, c.v = 1, 1 // image/jpeg treats gray as 1×1 whatever it says
				}
				comps = append(comps, c)
			}
		case m == 0xee && len(seg) >= 12 && string(seg[:5]) == "Adobe" && seg[11] == 0:
			rgbHint = true
		}
		i += 2 + n
	}
	if len(comps) == 0 || comps[0].h < 1 || comps[0].v < 1 {
		// Not decodable anyway; count the worst a 4-component progressive
		// image could take.
		return int64(width) * int64(height) * (4*5 + 4)
	}
	h0, v0 := comps[0].h, comps[0].v
	mxx := (int64(width) + 8*int64(h0) - 1) / (8 * int64(h0))
	myy := (int64(height) + 8*int64(v0) - 1) / (8 * int64(v0))
	var samples int64
	for _, c := range comps {
		samples += 8 * int64(c.h) * mxx * 8 * int64(c.v) * myy
	}
	cost := samples
	if progressive {
		cost += 4 * samples
	}
	if len(comps) == 3 && comps[0].id == 'R' && comps[1].id == 'G' && comps[2].id == 'B' {
		rgbHint = true
	}
	if len(comps) == 4 || (len(comps) == 3 && rgbHint) {
		cost += 4 * int64(width) * int64(height)
	}
	return cost
}

// webpCost follows golang.org/x/image/webp: lossy (VP8) is YCbCr 4:2:0
// over 16-pixel macroblocks, 1.5 bytes a pixel; an alpha plane adds a byte,
// and when that plane is itself lossless-compressed the decoder first
// builds it as a lossless image. Lossless (VP8L) is 4-byte NRGBA plus,
// for a colour-indexed image, the packed pixels it expands from and the
// transform sub-images: counted as 8 bytes a pixel. The decoder also
// copies the VP8 partitions out of the file, hence len(b).
func webpCost(b []byte, width, height int) int64 {
	px := int64(width) * int64(height)
	lossless := 8 * px
	mbw, mbh := (int64(width)+15)/16, (int64(height)+15)/16
	lossy := 16 * mbw * 16 * mbh * 3 / 2
	alpha := int64(0)
	for i := 12; i+8 <= len(b); {
		typ := string(b[i : i+4])
		n := int64(binary.LittleEndian.Uint32(b[i+4:]))
		switch typ {
		case "VP8 ":
			return lossy + alpha + int64(len(b))
		case "VP8L":
			return lossless + int64(len(b))
		case "ALPH":
			alpha = px
			if i+8 < len(b) && b[i+8]&0x03 == 1 {
				alpha += lossless
			}
		}
		if n > int64(len(b)) {
			break
		}
		i += 8 + int(n) + int(n&1)
	}
	// No image chunk found (DecodeConfig answered from VP8X): the worst.
	return lossy + px + lossless + int64(len(b))
}
