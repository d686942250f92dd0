package scripting

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
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
//
// The pinned build also gets one more export, evalFunctionExport (see
// evalFunctionIndex); any other build runs without it.
var engineWasm = sync.OnceValue(func() []byte {
	b, err := stripDebugSections(qjsWasm)
	if err != nil {
		return qjsWasm
	}
	if idx, ok := evalFunctionIndex(qjsWasm); ok {
		if withExport, err := addFunctionExport(b, evalFunctionExport, idx); err == nil {
			return withExport
		}
	}
	return b
})

// evalFunctionExport names QuickJS's JS_EvalFunction(ctx, fn) in our build
// of the engine. qjs only exports an Eval that reads bytecode and runs it in
// one call; with JS_EvalFunction the bytecode of a large Library can be read
// into a runtime ahead of time (a primed spare) and run later, taking ~3 ms
// of reading out of the hook (see Sandbox.prime).
const evalFunctionExport = "at_eval_function"

// pinnedQJSWasm is the sha256 of the qjs v0.0.6 build and pinnedEvalFunction
// the index of JS_EvalFunction in it. The binary has no name section, so the
// index was read from its code: QJS_Eval (func 28) calls QJS_Load (26) and
// then func 488, type (i32 ctx, i64 value) -> i64 value, exactly as
// qjs_eval_module calls JS_EvalFunction; load_buf (func 27) calls it after
// reading bytecode too. TestEvalFunctionExport runs bytecode through it. A
// different build gets no export, and hooks read their bytecode as before.
const (
	pinnedQJSWasm      = "88fcbeead33cca3ec8394feb0fb3eec8047ec9ac5062aba7a63799cee11989b7"
	pinnedEvalFunction = 488
)

func evalFunctionIndex(wasm []byte) (uint32, bool) {
	sum := sha256.Sum256(wasm)
	if hex.EncodeToString(sum[:]) != pinnedQJSWasm {
		return 0, false
	}
	return pinnedEvalFunction, true
}

// addFunctionExport appends an export of function index idx under name to
// the export section (id 7) of a wasm binary.
func addFunctionExport(wasm []byte, name string, idx uint32) ([]byte, error) {
	const headerLen = 8
	if len(wasm) < headerLen || string(wasm[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm binary")
	}
	for off := headerLen; off < len(wasm); {
		id := wasm[off]
		size, n := binary.Uvarint(wasm[off+1:])
		if n <= 0 || size > uint64(len(wasm)-off-1-n) {
			return nil, errors.New("truncated wasm section")
		}
		body := wasm[off+1+n : off+1+n+int(size)]
		end := off + 1 + n + int(size)
		if id != 7 {
			off = end
			continue
		}
		count, m := binary.Uvarint(body)
		if m <= 0 {
			return nil, errors.New("bad export section")
		}
		var entry []byte
		entry = binary.AppendUvarint(entry, uint64(len(name)))
		entry = append(entry, name...)
		entry = append(entry, 0) // kind: function
		entry = binary.AppendUvarint(entry, uint64(idx))
		newBody := binary.AppendUvarint(nil, count+1)
		newBody = append(newBody, body[m:]...)
		newBody = append(newBody, entry...)
		var out bytes.Buffer
		out.Grow(len(wasm) + len(entry) + 8)
		out.Write(wasm[:off])
		out.WriteByte(7)
		out.Write(binary.AppendUvarint(nil, uint64(len(newBody))))
		out.Write(newBody)
		out.Write(wasm[end:])
		return out.Bytes(), nil
	}
	return nil, errors.New("no export section")
}

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
