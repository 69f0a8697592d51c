package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// verdict is one object's health as a GitOps tool computes it; printed as one JSON line.
type verdict struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

// kstatusCommand prints kstatus' result (what Flux and kpt use to wait for objects) for each
// object in file.
func kstatusCommand(file string, out io.Writer) error {
	objects, err := readObjects(file)
	if err != nil {
		return err
	}
	for _, u := range objects {
		res, err := status.Compute(u)
		if err != nil {
			return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
		if err := printVerdict(out, verdict{u.GetKind(), u.GetName(), res.Status.String(), res.Message}); err != nil {
			return err
		}
	}
	return nil
}

// luaHealthCommand runs an Argo CD health script on each object of file the way Argo CD does:
// the object is the global obj, the script returns a table with status and message.
func luaHealthCommand(script, file string, out io.Writer) error {
	source, err := os.ReadFile(script)
	if err != nil {
		return err
	}
	objects, err := readObjects(file)
	if err != nil {
		return err
	}
	for _, u := range objects {
		l := lua.NewState(lua.Options{SkipOpenLibs: true})
		// The libraries Argo CD opens for health scripts.
		for _, lib := range []struct {
			name string
			open lua.LGFunction
		}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable},
			{lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
			l.Push(l.NewFunction(lib.open))
			l.Push(lua.LString(lib.name))
			l.Call(1, 0)
		}
		l.SetGlobal("obj", toLua(l, u.Object))
		if err := l.DoString(string(source)); err != nil {
			l.Close()
			return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
		result, ok := l.Get(-1).(*lua.LTable)
		if !ok {
			l.Close()
			return fmt.Errorf("%s %s: the script returned %s, not a table", u.GetKind(), u.GetName(), l.Get(-1).Type())
		}
		v := verdict{u.GetKind(), u.GetName(), lua.LVAsString(result.RawGetString("status")), lua.LVAsString(result.RawGetString("message"))}
		l.Close()
		if err := printVerdict(out, v); err != nil {
			return err
		}
	}
	return nil
}

func toLua(l *lua.LState, v interface{}) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case string:
		return lua.LString(x)
	case int64:
		return lua.LNumber(x)
	case float64:
		return lua.LNumber(x)
	case []interface{}:
		t := l.NewTable()
		for _, e := range x {
			t.Append(toLua(l, e))
		}
		return t
	case map[string]interface{}:
		t := l.NewTable()
		for k, e := range x {
			t.RawSetString(k, toLua(l, e))
		}
		return t
	default:
		return lua.LString(fmt.Sprint(x))
	}
}

func readObjects(file string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	decoder := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var objects []*unstructured.Unstructured
	for {
		var raw runtime.RawExtension
		if err := decoder.Decode(&raw); err == io.EOF {
			return objects, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(raw.Raw) == 0 || string(raw.Raw) == "null" {
			continue
		}
		// The unstructured scheme keeps whole numbers as int64, as the API machinery does.
		obj, err := runtime.Decode(unstructured.UnstructuredJSONScheme, raw.Raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		switch o := obj.(type) {
		case *unstructured.UnstructuredList:
			for i := range o.Items {
				objects = append(objects, &o.Items[i])
			}
		case *unstructured.Unstructured:
			objects = append(objects, o)
		}
	}
}

func printVerdict(out io.Writer, v verdict) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, string(b))
	return err
}
