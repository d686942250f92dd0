package table

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// ZeroPNG builds a valid PNG whose pixels are all zero, of any size, in
// a few hundred KiB and a few milliseconds: the raw rows are written as one
// fixed-Huffman deflate block of 258-byte runs instead of being encoded
// (4000×4000 at 16-bit RGBA takes 0.8 MB). Exported for the service tests.
func ZeroPNG(width, height int, depth, colorType byte, interlaced, transparent bool) []byte {
	channels := map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colorType]
	rowBytes := func(w int) int { return (w*channels*int(depth) + 7) / 8 }
	raw := height * (1 + rowBytes(width))
	if interlaced {
		raw = 0
		for _, p := range [][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}} {
			pw, ph := (width-p[0]+p[2]-1)/p[2], (height-p[1]+p[3]-1)/p[3]
			if pw > 0 && ph > 0 {
				raw += ph * (1 + rowBytes(pw))
			}
		}
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(width))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(height))
	ilace := byte(0)
	if interlaced {
		ilace = 1
	}
	ihdr = append(ihdr, depth, colorType, 0, 0, ilace)
	b := pngChunk([]byte("\x89PNG\r\n\x1a\n"), "IHDR", ihdr)
	if colorType == 3 {
		b = pngChunk(b, "PLTE", []byte{0, 0, 0})
	}
	if transparent {
		b = pngChunk(b, "tRNS", []byte{0, 0})
	}
	b = pngChunk(b, "IDAT", zlibZeros(raw))
	return pngChunk(b, "IEND", nil)
}

func pngChunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// zlibZeros is a zlib stream of n zero bytes.
func zlibZeros(n int) []byte {
	w := &bitWriter{out: []byte{0x78, 0x01}}
	w.bits(1, 1) // final block
	w.bits(1, 2) // fixed Huffman codes
	w.code(0x30, 8)
	for left := n - 1; left > 0; {
		if left >= 258 {
			w.code(0xc5, 8) // length 258
			w.code(0, 5)    // distance 1
			left -= 258
		} else {
			w.code(0x30, 8) // a literal zero
			left--
		}
	}
	w.code(0, 7) // end of block
	if w.n > 0 {
		w.out = append(w.out, byte(w.acc))
	}
	// Adler-32 of zeros: a stays 1 and b adds it once a byte.
	return binary.BigEndian.AppendUint32(w.out, uint32(n%65521)<<16|1)
}

type bitWriter struct {
	out []byte
	acc uint64
	n   uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.n
	for w.n += n; w.n >= 8; w.n -= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
	}
}

// code writes a Huffman code, which deflate packs most significant bit first.
func (w *bitWriter) code(c uint64, n uint) {
	var r uint64
	for i := range n {
		r = r<<1 | (c>>i)&1
	}
	w.bits(r, n)
}

func jpegHeader(marker byte, w, h int, adobe0 bool, comps ...[2]byte) []byte {
	b := []byte{0xff, 0xd8}
	if adobe0 {
		seg := append([]byte("Adobe"), 0, 100, 0, 0, 0, 0, 0) // version, flags, transform 0
		b = append(append(b, 0xff, 0xee, 0, byte(2+len(seg))), seg...)
	}
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(len(comps))}
	for _, c := range comps {
		sof = append(sof, c[0], c[1], 0)
	}
	b = append(append(b, 0xff, marker, 0, byte(2+len(sof))), sof...)
	// A scan header ends what DecodeConfig reads; no scan data follows.
	return append(b, 0xff, 0xda, 0, 8, 1, 1, 0, 0, 63, 0, 0xff, 0xd9)
}

func webpFile(chunks ...[]byte) []byte {
	body := []byte("WEBP")
	for _, c := range chunks {
		body = append(body, c...)
	}
	return append(binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(len(body))), body...)
}

func webpChunk(fourcc string, data []byte) []byte {
	b := append(binary.LittleEndian.AppendUint32([]byte(fourcc), uint32(len(data))), data...)
	if len(data)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

func vp8Frame(w, h int) []byte {
	return []byte{0x10, 0, 0, 0x9d, 0x01, 0x2a, byte(w), byte(w >> 8), byte(h), byte(h >> 8)}
}

func vp8lHeader(w, h int) []byte {
	return append([]byte{0x2f}, binary.LittleEndian.AppendUint32(nil, uint32(w-1)|uint32(h-1)<<14)...)
}

func vp8x(w, h int, alpha bool) []byte {
	flags := byte(0)
	if alpha {
		flags = 0x10
	}
	return []byte{flags, 0, 0, 0, byte(w - 1), byte((w - 1) >> 8), byte((w - 1) >> 16), byte(h - 1), byte((h - 1) >> 8), byte((h - 1) >> 16)}
}

// TestDecodeCost checks the cost read from each header against what the
// decoder allocates, and that an image over the decode budget is refused
// from its header (the crafted headers here have no pixels to decode).
func TestDecodeCost(t *testing.T) {
	ycc420 := [][2]byte{{1, 0x22}, {2, 0x11}, {3, 0x11}}
	ycc444 := [][2]byte{{1, 0x11}, {2, 0x11}, {3, 0x11}}
	tests := []struct {
		name     string
		data     []byte
		want     int64 // bytes, before the WebP input copy
		webpCopy bool
	}{
		{"PNGGray8", ZeroPNG(4000, 4000, 8, 0, false, false), 16_000_000 + 2*4001, false},
		{"PNGGray8Transparent", ZeroPNG(4000, 4000, 8, 0, false, true), 64_000_000 + 2*4001, false},
		{"PNGGray16", ZeroPNG(4000, 4000, 16, 0, false, false), 32_000_000 + 2*8001, false},
		{"PNGPaletted", ZeroPNG(4000, 4000, 8, 3, false, false), 16_000_000 + 2*4001, false},
		{"PNGRGB8", ZeroPNG(4000, 4000, 8, 2, false, false), 64_000_000 + 2*12001, false},
		{"PNGRGBA8", ZeroPNG(4000, 4000, 8, 6, false, false), 64_000_000 + 2*16001, false},
		{"PNGRGBA16", ZeroPNG(4000, 4000, 16, 6, false, false), 128_000_000 + 2*32001, false},
		{"PNGGray16Transparent", ZeroPNG(4000, 4000, 16, 0, false, true), 128_000_000 + 2*8001, false},
		{"PNGInterlacedRGBA8", ZeroPNG(4000, 4000, 8, 6, true, false), 128_000_000 + 2*16001, false},
		{"PNGInterlacedRGBA8NearTheCap", ZeroPNG(2880, 2880, 8, 6, true, false), 2880*2880*8 + 2*11521, false},
		{"JPEGBaseline420", jpegHeader(0xc0, 4000, 4000, false, ycc420...), 24_000_000, false},
		{"JPEGProgressive420", jpegHeader(0xc2, 4000, 4000, false, ycc420...), 120_000_000, false},
		{"JPEGProgressive444", jpegHeader(0xc2, 2000, 2000, false, ycc444...), 60_000_000, false},
		{"JPEGRGB", jpegHeader(0xc0, 2000, 2000, false, [2]byte{'R', 0x11}, [2]byte{'G', 0x11}, [2]byte{'B', 0x11}), 28_000_000, false},
		{"JPEGAdobeRGB", jpegHeader(0xc0, 2000, 2000, true, ycc444...), 28_000_000, false},
		{"JPEGCMYK", jpegHeader(0xc0, 2000, 2000, true, [2]byte{1, 0x11}, [2]byte{2, 0x11}, [2]byte{3, 0x11}, [2]byte{4, 0x11}), 32_000_000, false},
		{"JPEGGrayPadded", jpegHeader(0xc0, 3999, 3999, false, [2]byte{1, 0x22}), 16_000_000, false},
		{"WebPLossy", webpFile(webpChunk("VP8 ", vp8Frame(4000, 4000))), 24_000_000, true},
		{"WebPLossless", webpFile(webpChunk("VP8L", vp8lHeader(3000, 3000))), 72_000_000, true},
		{"WebPAlphaRaw", webpFile(webpChunk("VP8X", vp8x(3000, 3000, true)), webpChunk("ALPH", []byte{0}), webpChunk("VP8 ", vp8Frame(3000, 3000))),
			3008*3008*3/2 + 9_000_000, true},
		{"WebPAlphaLossless", webpFile(webpChunk("VP8X", vp8x(3000, 3000, true)), webpChunk("ALPH", []byte{1}), webpChunk("VP8 ", vp8Frame(3000, 3000))),
			3008*3008*3/2 + 9_000_000 + 72_000_000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f imageFormat
			for _, g := range stageFormats {
				if g.magic(tt.data) {
					f = g
				}
			}
			cfg, err := f.decodeConfig(tt.data)
			if err != nil {
				t.Fatalf("header: %v", err)
			}
			want := tt.want
			if tt.webpCopy {
				want += int64(len(tt.data))
			}
			if got := f.cost(tt.data, cfg.Width, cfg.Height); got != want {
				t.Fatalf("cost %d, want %d", got, want)
			}
			if want+decoderState <= maxDecodeBytes {
				return
			}
			_, _, _, err = inspectImage(context.Background(), tt.data)
			e, _ := apperr.As(err)
			if e == nil || e.Code != apperr.StageImageInvalid || e.Details["max_decode_bytes"] == nil {
				t.Fatalf("over the budget: got %v, want stage_image_invalid with max_decode_bytes", err)
			}
		})
	}
}

// TestInspectDecodes: small images of every PNG colour model pass the full
// decode, and a truncated or corrupted one is still refused.
func TestInspectDecodes(t *testing.T) {
	for _, ct := range []byte{0, 2, 3, 4, 6} {
		for _, depth := range []byte{8, 16} {
			if ct == 3 && depth == 16 {
				continue
			}
			for _, interlaced := range []bool{false, true} {
				data := ZeroPNG(33, 17, depth, ct, interlaced, false)
				if _, w, h, err := inspectImage(context.Background(), data); err != nil || w != 33 || h != 17 {
					t.Fatalf("type %d depth %d interlaced %v: %dx%d %v", ct, depth, interlaced, w, h, err)
				}
			}
		}
	}
	whole := ZeroPNG(300, 300, 8, 6, false, false)
	corrupt := append([]byte(nil), whole...)
	corrupt[len(corrupt)-20] ^= 0xff // inside the IDAT data: its CRC no longer matches
	for name, data := range map[string][]byte{"Truncated": whole[:len(whole)-30], "Corrupt": corrupt} {
		if _, _, _, err := inspectImage(context.Background(), data); apperr.CodeOf(err) != apperr.StageImageInvalid {
			t.Errorf("%s: got %v, want stage_image_invalid", name, err)
		}
	}
}

// TestDecodeWaitsForASlot: with every slot taken an upload waits, and its
// request ending ends the wait.
func TestDecodeWaitsForASlot(t *testing.T) {
	for range maxConcurrentDecodes {
		decodeSlots <- struct{}{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, _, _, err := inspectImage(ctx, ZeroPNG(8, 8, 8, 0, false, false))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("decoded without a slot: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	for range maxConcurrentDecodes {
		<-decodeSlots
	}
	if _, _, _, err := inspectImage(context.Background(), ZeroPNG(8, 8, 8, 0, false, false)); err != nil {
		t.Fatalf("with the slots free: %v", err)
	}
}
