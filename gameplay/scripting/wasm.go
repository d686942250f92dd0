package scripting

import (
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	_ "unsafe" // go:linkname
)

// qjsWasm is the QuickJS build qjs embeds (qjs v0.0.6 runtime.go,
// wasmBytes). qjs exposes no accessor; the pinned version and
// TestEngineWasm keep this in step.
//
//go:linkname qjsWasm github.com/fastschema/qjs.wasmBytes
var qjsWasm []byte

// engineWasm is qjsWasm without its DWARF sections. They cover a few
// libc files only, but their mere presence makes wazero record a source
// position for every native instruction of every function: ~60% more to
// compile and a cache entry that wazero reads back 8 bytes per system
// call (~130k of them, most of a warm start). Traps lose file:line
// details, which no error message shows. Every qjs.New of this package
// passes these bytes: qjs recompiles whenever the bytes change. Should
// they ever fail to parse (TestEngineWasm says they do not), the original
// bytes are used.
var engineWasm = sync.OnceValue(func() []byte {
	if b, err := stripDebugSections(qjsWasm); err == nil {
		return b
	}
	return qjsWasm
})

// stripDebugSections drops the custom sections named .debug_* from a wasm
// binary, leaving every other section as it is.
func stripDebugSections(wasm []byte) ([]byte, error) {
	const headerLen = 8 // magic + version
	if len(wasm) < headerLen || string(wasm[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm binary")
	}
	out := append(make([]byte, 0, len(wasm)), wasm[:headerLen]...)
	for rest := wasm[headerLen:]; len(rest) > 0; {
		id := rest[0]
		size, n := binary.Uvarint(rest[1:])
		if n <= 0 || size > uint64(len(rest)-1-n) {
			return nil, errors.New("truncated wasm section")
		}
		section := rest[:1+n+int(size)]
		body := rest[1+n : 1+n+int(size)]
		rest = rest[len(section):]
		if id == 0 {
			nameLen, m := binary.Uvarint(body)
			if m <= 0 || nameLen > uint64(len(body)-m) {
				return nil, errors.New("bad custom section name")
			}
			if strings.HasPrefix(string(body[m:m+int(nameLen)]), ".debug_") {
				continue
			}
		}
		out = append(out, section...)
	}
	return out, nil
}
