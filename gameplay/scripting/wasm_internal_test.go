package scripting

import (
	"context"
	"testing"

	"github.com/fastschema/qjs"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The export added to the pinned engine must be JS_EvalFunction: a function
// (ctx i32, value i64) -> i64 that runs bytecode read earlier, and only then.
func TestEvalFunctionExport(t *testing.T) {
	if _, ok := evalFunctionIndex(qjsWasm); !ok {
		t.Fatal("the linked qjs build is not the pinned one: find JS_EvalFunction's index in the new build (see wasm.go)")
	}
	rt := wazero.NewRuntime(context.Background())
	defer rt.Close(context.Background())
	mod, err := rt.CompileModule(context.Background(), engineWasm())
	if err != nil {
		t.Fatal(err)
	}
	def, ok := mod.ExportedFunctions()[evalFunctionExport]
	if !ok {
		t.Fatalf("no %s export", evalFunctionExport)
	}
	if p, r := def.ParamTypes(), def.ResultTypes(); len(p) != 2 || p[0] != api.ValueTypeI32 || p[1] != api.ValueTypeI64 || len(r) != 1 || r[0] != api.ValueTypeI64 {
		t.Fatalf("%s has type %v -> %v, want (i32, i64) -> i64", evalFunctionExport, p, r)
	}

	v, err := newVM(t.TempDir()+"/none", 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer v.close(true)
	err = v.call(func() error {
		bc, err := v.compileSloppy(scriptFile, "globalThis.ran = (globalThis.ran ?? 0) + 1; var declared = 'yes'; 40 + 2")
		if err != nil {
			return err
		}
		fn, err := v.readBytecode(bc)
		if err != nil {
			return err
		}
		if got, _ := v.rt.Eval("check.js", qjs.Code("typeof ran")); got.String() != "undefined" {
			t.Errorf("reading the bytecode ran it: typeof ran = %s", got.String())
		}
		ret, err := v.evalFunction(fn)
		if err != nil {
			return err
		}
		if ret.String() != "42" {
			t.Errorf("completion value %s, want 42", ret.String())
		}
		if got, _ := v.rt.Eval("check.js", qjs.Code("ran + ' ' + declared")); got.String() != "1 yes" {
			t.Errorf("after the run: %s, want \"1 yes\" (a global var, run once)", got.String())
		}
		bc, err = v.compileSloppy(scriptFile, "new Error('as a value')")
		if err != nil {
			return err
		}
		if fn, err = v.readBytecode(bc); err != nil {
			return err
		}
		if _, err := v.evalFunction(fn); err == nil {
			t.Error("an Error completion value was not reported")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAddFunctionExportRejectsBadInput(t *testing.T) {
	for _, bad := range [][]byte{nil, []byte("\x7fELF\x01\x00\x00\x00"), []byte("\x00asm\x01\x00\x00\x00\x07\x05\x01"), []byte("\x00asm\x01\x00\x00\x00")} {
		if _, err := addFunctionExport(bad, "x", 1); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, ok := evalFunctionIndex(engineWasm()); ok {
		t.Error("the index was accepted for a build other than the pinned one")
	}
}
