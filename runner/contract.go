package runner

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/jobqdev/jobq"
)

// PayloadSchemaOf derives the payload contract of jobq.tasks (a map from payload key to type, a
// key ending in "?" being optional) from the JSON encoding of t, the way encoding/json marshals
// it. NewTask and NewStoreTask call it for their payload type; it is exported so a service can
// declare a task it only enqueues (Config.Tasks) with the same contract. The rules:
//
//   - Only the top level is described: a struct's exported fields under their JSON names (the
//     json tag's name, else the field name); fields tagged "-" are left out. Keys the contract
//     does not name are allowed by the engine, so a payload may carry more.
//   - Embedded structs (and embedded pointers to structs) without a json name are flattened into
//     their parent as encoding/json does: the shallower field wins, then the tagged one, and two
//     fields of one name at one depth cancel out. An embedded struct with a json name is a key of
//     type object.
//   - A key is optional ("key?") when its field is tagged omitempty or omitzero, is a pointer, or
//     is reached through an embedded pointer: the encoding may leave it out, or write null for a
//     nil pointer. A slice or map without omitempty is optional too, since a nil one encodes as
//     null: the engine takes null for an optional key, and for a required one only as any.
//   - Types: string → string (in a store-scoped task the key storeId → uuid); time.Time →
//     timestamp; signed and unsigned integers → integer; floats and json.Number → number; bool →
//     boolean; structs and maps → object; slices and arrays → array, but []byte (base64) →
//     string; interfaces and json.RawMessage → any; a field with the json option "string" →
//     string; any other type with its own MarshalJSON → any, with MarshalText → string; channels,
//     functions and complex numbers (which encoding/json cannot encode) → any. Pointers are
//     described by what they point to.
//
// A t that is not a struct (or a pointer to one), or that has its own MarshalJSON or
// MarshalText, gets the empty contract: any JSON object.
func PayloadSchemaOf(t reflect.Type, scope jobq.TaskScope) map[string]string {
	schema := map[string]string{}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || t.Implements(jsonMarshaler) || t.Implements(textMarshaler) {
		return schema
	}
	for _, f := range jsonFields(t) {
		typ := contractType(f.typ, f.quoted)
		if scope == jobq.ScopeStore && f.name == "storeId" && typ == "string" {
			typ = "uuid"
		}
		key := f.name
		if f.optional || nullable(f.typ) {
			key += "?"
		}
		schema[key] = typ
	}
	return schema
}

var (
	jsonMarshaler  = reflect.TypeFor[json.Marshaler]()
	textMarshaler  = reflect.TypeFor[encoding.TextMarshaler]()
	timeType       = reflect.TypeFor[time.Time]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
)

// contractType is the payload-contract type of a value of Go type t.
func contractType(t reflect.Type, quoted bool) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return "timestamp"
	case t == rawMessageType:
		return "any"
	case t == numberType:
		return "number"
	case t.Implements(jsonMarshaler):
		return "any"
	case t.Implements(textMarshaler):
		return "string"
	case quoted:
		return "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice:
		if e := t.Elem(); e.Kind() == reflect.Uint8 && !e.Implements(jsonMarshaler) && !e.Implements(textMarshaler) &&
			!reflect.PointerTo(e).Implements(jsonMarshaler) && !reflect.PointerTo(e).Implements(textMarshaler) {
			return "string" // encoding/json writes []byte as base64
		}
		return "array"
	case reflect.Array:
		return "array"
	default: // interfaces; channels, functions and complex numbers do not encode at all
		return "any"
	}
}

// nullable reports whether encoding/json may write a value of type t as null: a nil slice or map.
// Pointers are optional by rule; interfaces and json.RawMessage are "any", which takes null.
func nullable(t reflect.Type) bool {
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) {
		return false
	}
	return t.Kind() == reflect.Slice || t.Kind() == reflect.Map
}

// jsonField is one key of a struct's JSON encoding.
type jsonField struct {
	name     string
	tagged   bool
	index    []int
	typ      reflect.Type
	quoted   bool // the json option "string"
	optional bool // omitempty, omitzero, a pointer, or reached through an embedded pointer
}

// jsonFields lists the keys encoding/json writes for struct type t, with its rules for embedded
// structs (typeFields in encoding/json/encode.go).
func jsonFields(t reflect.Type) []jsonField {
	type level struct {
		typ      reflect.Type
		index    []int
		optional bool
	}
	var fields []jsonField
	next := []level{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(l.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					quoted := false
					if hasOption(opts, "string") {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64, reflect.String:
							quoted = true
						}
					}
					f := jsonField{
						name: name, tagged: name != "", index: index, typ: sf.Type, quoted: quoted,
						optional: l.optional || sf.Type.Kind() == reflect.Pointer || hasOption(opts, "omitempty") || hasOption(opts, "omitzero"),
					}
					if f.name == "" {
						f.name = sf.Name
					}
					fields = append(fields, f)
					if count[l.typ] > 1 {
						// The struct was embedded more than once at this depth: the duplicate makes
						// its fields cancel out below, as in encoding/json.
						fields = append(fields, f)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{typ: ft, index: index, optional: l.optional || sf.Type.Kind() == reflect.Pointer})
				}
			}
		}
	}
	slices.SortStableFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		n := 1
		for i+n < len(fields) && fields[i+n].name == fields[i].name {
			n++
		}
		group := fields[i : i+n]
		// The first of a group dominates unless the second is as shallow and as tagged.
		if n == 1 || len(group[0].index) != len(group[1].index) || group[0].tagged != group[1].tagged {
			out = append(out, group[0])
		}
		i += n
	}
	return out
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// validTagName is encoding/json's isValidTag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
