// Command gen writes ../fields_gen.go: for each supported Kubernetes release, the struct fields
// reachable from k8s.io/api/core/v1.PodTemplateSpec in that release's k8s.io/api and
// k8s.io/apimachinery, read with go/parser from the module cache (it runs `go mod download`).
// Run it with `go generate ./internal/hashdump` after adding a release to the list below.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// releases are the supported releases, oldest first: the minor and the k8s.io/api and
// k8s.io/apimachinery version of its newest supported patch.
var releases = []struct {
	minor   int
	version string
}{
	{33, "v0.33.13"},
	{34, "v0.34.4"},
	{35, "v0.35.4"},
	{36, "v0.36.3"},
	{37, "v0.37.2"},
}

const root = "k8s.io/api/core/v1.PodTemplateSpec"

func main() {
	out := "fields_gen.go"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	if err := run(out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// field is one struct field as a release declares it.
type field struct {
	name string
	typ  string // as reflect's Type.String spells it
	kind string // reflect.Kind of the underlying type, as the Go identifier
	elem string // for a struct kind: the struct's key (import path "." name)
}

// merged is a field with the releases that declare it.
type merged struct {
	field
	since, until int
}

func run(out string) error {
	table := map[string][]merged{} // struct key -> fields in declaration order
	var modules []string
	for _, r := range releases {
		api, err := moduleDir("k8s.io/api", r.version)
		if err != nil {
			return err
		}
		machinery, err := moduleDir("k8s.io/apimachinery", r.version)
		if err != nil {
			return err
		}
		modules = append(modules, fmt.Sprintf("1.%d: k8s.io/api and k8s.io/apimachinery %s", r.minor, r.version))
		ld := &loader{dirs: map[string]string{"k8s.io/api/": api + "/", "k8s.io/apimachinery/": machinery + "/"}, pkgs: map[string]*pkg{}}
		structs, err := ld.reachable(root)
		if err != nil {
			return fmt.Errorf("1.%d: %w", r.minor, err)
		}
		for key, fields := range structs {
			m, err := merge(table[key], fields, r.minor)
			if err != nil {
				return fmt.Errorf("1.%d: %s: %w", r.minor, key, err)
			}
			table[key] = m
		}
	}
	return write(out, table, modules)
}

// merge adds the fields one release declares to the fields of the earlier releases, keeping
// declaration order; it fails when two releases order the same fields differently.
func merge(prev []merged, fields []field, minor int) ([]merged, error) {
	out := slices.Clone(prev)
	at := -1 // index in out of the last field placed
	for _, f := range fields {
		i := slices.IndexFunc(out, func(m merged) bool { return m.field == f && m.until == minor-1 })
		if i < 0 {
			out = slices.Insert(out, at+1, merged{field: f, since: minor, until: minor})
			at++
			continue
		}
		if i < at {
			return nil, fmt.Errorf("field %s moved: releases disagree on the field order", f.name)
		}
		out[i].until = minor
		at = i
	}
	return out, nil
}

func moduleDir(path, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", path+"@"+version)
	cmd.Stderr = os.Stderr
	data, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", path, version, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(data, &m); err != nil {
		return "", err
	}
	return m.Dir, nil
}

// pkg is one parsed package: its name and type declarations, and each file's imports.
type pkg struct {
	name  string
	types map[string]typeDecl
}

type typeDecl struct {
	expr    ast.Expr
	alias   bool
	imports map[string]string // local name -> import path, of the declaring file
}

type loader struct {
	dirs map[string]string // import path prefix -> module directory
	pkgs map[string]*pkg
}

func (l *loader) load(path string) (*pkg, error) {
	if p, ok := l.pkgs[path]; ok {
		return p, nil
	}
	var dir string
	for prefix, d := range l.dirs {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			dir = d + rest
		}
	}
	if dir == "" {
		return nil, nil // outside k8s.io/api and k8s.io/apimachinery: dumped as linked
	}
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &pkg{types: map[string]typeDecl{}}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		// Files behind build tags (meta/v1 fieldsv1_string.go) are not in the default build.
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.name = f.Name.Name
		imports := map[string]string{}
		for _, im := range f.Imports {
			ipath, _ := strconv.Unquote(im.Path.Value)
			local := ipath[strings.LastIndex(ipath, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			} else if imported, err := l.load(ipath); err == nil && imported != nil {
				local = imported.name
			}
			imports[local] = ipath
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				p.types[ts.Name.Name] = typeDecl{expr: ts.Type, alias: ts.Assign.IsValid(), imports: imports}
			}
		}
	}
	l.pkgs[path] = p
	return p, nil
}

// reachable returns the fields of every struct reachable from the struct key through field
// types, by struct key.
func (l *loader) reachable(key string) (map[string][]field, error) {
	out := map[string][]field{}
	queue := []string{key}
	for len(queue) > 0 {
		key, queue = queue[0], queue[1:]
		if _, ok := out[key]; ok {
			continue
		}
		dot := strings.LastIndex(key, ".")
		p, err := l.load(key[:dot])
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		decl, ok := p.types[key[dot+1:]]
		if !ok {
			return nil, fmt.Errorf("%s: no such type", key)
		}
		st, ok := decl.expr.(*ast.StructType)
		if !ok {
			return nil, fmt.Errorf("%s: not a struct", key)
		}
		var fields []field
		for _, f := range st.Fields.List {
			t, err := l.describe(key[:dot], p, decl.imports, f.Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			names := f.Names
			if len(names) == 0 {
				names = []*ast.Ident{ast.NewIdent(embeddedName(f.Type))}
			}
			for _, n := range names {
				fields = append(fields, field{name: n.Name, typ: t.typ, kind: t.kind, elem: t.elem})
			}
			queue = append(queue, t.structs...)
		}
		out[key] = fields
	}
	return out, nil
}

func embeddedName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return embeddedName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	panic(fmt.Sprintf("embedded field of type %T", e))
}

// description is what a field's type expression says: its reflect spelling and kind, and the
// structs it reaches.
type description struct {
	typ, kind, elem string
	structs         []string
}

var basic = map[string]string{
	"bool": "Bool", "string": "String", "int": "Int", "int8": "Int8", "int16": "Int16", "int32": "Int32",
	"int64": "Int64", "uint": "Uint", "uint8": "Uint8", "uint16": "Uint16", "uint32": "Uint32",
	"uint64": "Uint64", "float32": "Float32", "float64": "Float64", "byte": "Uint8", "rune": "Int32",
}

func (l *loader) describe(path string, p *pkg, imports map[string]string, e ast.Expr) (description, error) {
	switch e := e.(type) {
	case *ast.StarExpr:
		d, err := l.describe(path, p, imports, e.X)
		return description{typ: "*" + d.typ, kind: "Pointer", structs: d.structs}, err
	case *ast.ArrayType:
		d, err := l.describe(path, p, imports, e.Elt)
		if e.Len != nil {
			lit, ok := e.Len.(*ast.BasicLit)
			if !ok {
				return description{}, fmt.Errorf("array length %T", e.Len)
			}
			return description{typ: "[" + lit.Value + "]" + d.typ, kind: "Array", structs: d.structs}, err
		}
		return description{typ: "[]" + d.typ, kind: "Slice", structs: d.structs}, err
	case *ast.MapType:
		k, err := l.describe(path, p, imports, e.Key)
		if err != nil {
			return description{}, err
		}
		v, err := l.describe(path, p, imports, e.Value)
		return description{typ: "map[" + k.typ + "]" + v.typ, kind: "Map", structs: append(k.structs, v.structs...)}, err
	case *ast.InterfaceType:
		return description{typ: "interface {}", kind: "Interface"}, nil
	case *ast.Ident:
		if kind, ok := basic[e.Name]; ok {
			name := e.Name
			switch name {
			case "byte":
				name = "uint8"
			case "rune":
				name = "int32"
			}
			return description{typ: name, kind: kind}, nil
		}
		return l.named(path, p, e.Name)
	case *ast.SelectorExpr:
		x := e.X.(*ast.Ident).Name
		ipath, ok := imports[x]
		if !ok {
			return description{}, fmt.Errorf("unknown import %s", x)
		}
		q, err := l.load(ipath)
		if err != nil {
			return description{}, err
		}
		if q == nil {
			// Outside the parsed modules (time.Time, inf.Dec): a struct dumped as linked.
			name := ipath[strings.LastIndex(ipath, "/")+1:]
			name, _, _ = strings.Cut(name, ".")
			return description{typ: name + "." + e.Sel.Name, kind: "Struct", elem: ipath + "." + e.Sel.Name}, nil
		}
		return l.named(ipath, q, e.Sel.Name)
	}
	return description{}, fmt.Errorf("unsupported type expression %T", e)
}

// named describes the named type name of package p (import path path).
func (l *loader) named(path string, p *pkg, name string) (description, error) {
	decl, ok := p.types[name]
	if !ok {
		return description{}, fmt.Errorf("%s.%s: no such type", path, name)
	}
	if decl.alias {
		// reflect spells an alias as the type it stands for.
		return l.describe(path, p, decl.imports, decl.expr)
	}
	typ := p.name + "." + name
	if _, ok := decl.expr.(*ast.StructType); ok {
		key := path + "." + name
		return description{typ: typ, kind: "Struct", elem: key, structs: []string{key}}, nil
	}
	under, err := l.describe(path, p, decl.imports, decl.expr)
	if err != nil {
		return description{}, err
	}
	return description{typ: typ, kind: under.kind, elem: under.elem, structs: under.structs}, nil
}

func write(out string, table map[string][]merged, modules []string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./gen; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package hashdump\n\nimport \"reflect\"\n\n")
	fmt.Fprintf(&b, "// Sources of the table, read from the module cache:\n")
	for _, m := range modules {
		fmt.Fprintf(&b, "//   - %s\n", m)
	}
	fmt.Fprintf(&b, "\n// oldest and newest are the minors of the releases the table covers.\n")
	fmt.Fprintf(&b, "const (\n\toldest = %d\n\tnewest = %d\n)\n\n", releases[0].minor, releases[len(releases)-1].minor)
	fmt.Fprintf(&b, "// releaseFields lists, for each struct reachable from v1.PodTemplateSpec in some release, its\n")
	fmt.Fprintf(&b, "// fields in declaration order with the releases that declare them (minors, inclusive).\n")
	fmt.Fprintf(&b, "var releaseFields = Table{\n")
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "\t%q: {\n", k)
		for _, f := range table[k] {
			fmt.Fprintf(&b, "\t\t{Name: %q, Type: %q, Kind: reflect.%s, ", f.name, f.typ, f.kind)
			if f.elem != "" {
				fmt.Fprintf(&b, "Struct: %q, ", f.elem)
			}
			fmt.Fprintf(&b, "Since: %d, Until: %d},\n", f.since, f.until)
		}
		fmt.Fprintf(&b, "\t},\n")
	}
	fmt.Fprintf(&b, "}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}
