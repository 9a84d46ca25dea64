package runner_test

import (
	"encoding/json"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

type contractAudit struct {
	By string `json:"by"`
	At time.Time
}

type contractPaging struct {
	Page int `json:"page"`
}

type contractInner struct {
	Depth int `json:"depth"`
}

type contractOuterA struct{ contractInner }
type contractOuterB struct{ contractInner }

// contractArgs exercises every rule of PayloadSchemaOf.
type contractArgs struct {
	StoreID         string            `json:"storeId"`
	Day             time.Time         `json:"day"`
	Reason          *string           `json:"reason"`
	Limit           int               `json:"limit,omitempty"`
	Since           time.Time         `json:"since,omitzero"`
	Ratio           float64           `json:"ratio"`
	Amount          json.Number       `json:"amount"`
	Dry             bool              `json:"dry"`
	Count           uint16            `json:"count"`
	Big             int64             `json:"big,string"`
	Tags            []string          `json:"tags"`
	Grid            [2]int            `json:"grid"`
	Blob            []byte            `json:"blob"`
	Meta            map[string]any    `json:"meta,omitempty"`
	Nested          contractPaging    `json:"nested"`
	Anything        any               `json:"anything"`
	Raw             json.RawMessage   `json:"raw"`
	IP              net.IP            `json:"ip"`
	Headers         map[string]string `json:"headers"`
	NoTag           string
	Skipped         string `json:"-"`
	Dash            string `json:"-,"`
	secret          string
	Optional        *contractAudit `json:"optional"`
	Named           contractAudit  `json:"named"`
	Shadowed        string         `json:"page"` // shallower than the embedded contractPaging.page: wins
	Duplicate       string         `json:"by"`   // shallower than contractAudit.by: wins
	contractAudit                  // flattened: by (shadowed), At
	*contractPaging                // flattened through a pointer: optional
	contractOuterA                 // depth and depth again at one level: cancel out
	contractOuterB
}

func (a contractArgs) JobStoreID() string { return a.StoreID }

func TestPayloadSchemaOf(t *testing.T) {
	t.Parallel()
	_ = contractArgs{}.secret

	t.Run("EveryRule", func(t *testing.T) {
		t.Parallel()
		want := map[string]string{
			"storeId":   "uuid",
			"day":       "timestamp",
			"reason?":   "string",
			"limit?":    "integer",
			"since?":    "timestamp",
			"ratio":     "number",
			"amount":    "number",
			"dry":       "boolean",
			"count":     "integer",
			"big":       "string",
			"tags?":     "array", // a nil slice encodes as null
			"grid":      "array",
			"blob?":     "string", // base64; nil encodes as null
			"meta?":     "object",
			"nested":    "object",
			"anything":  "any",
			"raw":       "any",
			"ip":        "string", // net.IP is a []byte with MarshalText: nil encodes as ""
			"headers?":  "object",
			"NoTag":     "string",
			"-":         "string",
			"optional?": "object",
			"named":     "object",
			"page":      "string",
			"by":        "string",
			"At":        "timestamp",
		}
		require.Equal(t, want, runner.PayloadSchemaOf(reflect.TypeFor[contractArgs](), jobq.ScopeStore))
	})
	t.Run("StoreIDIsAUUIDOnlyInAStoreTask", func(t *testing.T) {
		t.Parallel()
		schema := runner.PayloadSchemaOf(reflect.TypeFor[contractArgs](), jobq.ScopeSystem)
		require.Equal(t, "string", schema["storeId"])
		require.Equal(t, "string", schema["NoTag"])
	})
	t.Run("PointerTypeIsItsStruct", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, map[string]string{"name": "string", "count": "integer"},
			runner.PayloadSchemaOf(reflect.TypeFor[*Greeting](), jobq.ScopeSystem))
	})
	t.Run("EmbeddedPointerFieldsAreOptional", func(t *testing.T) {
		t.Parallel()
		type withPaging struct {
			*contractPaging
			Query string `json:"query"`
		}
		require.Equal(t, map[string]string{"page?": "integer", "query": "string"},
			runner.PayloadSchemaOf(reflect.TypeFor[withPaging](), jobq.ScopeSystem))
	})
	t.Run("EmbeddedStructWithAJSONNameIsAKey", func(t *testing.T) {
		t.Parallel()
		type withNamedEmbed struct {
			contractPaging `json:"paging"`
		}
		require.Equal(t, map[string]string{"paging": "object"},
			runner.PayloadSchemaOf(reflect.TypeFor[withNamedEmbed](), jobq.ScopeSystem))
	})
	t.Run("WhatJSONCannotEncodeIsAny", func(t *testing.T) {
		t.Parallel()
		type odd struct {
			Ch  chan int   `json:"ch"`
			Fn  func()     `json:"fn"`
			Cpx complex128 `json:"cpx"`
		}
		require.Equal(t, map[string]string{"ch": "any", "fn": "any", "cpx": "any"},
			runner.PayloadSchemaOf(reflect.TypeFor[odd](), jobq.ScopeSystem))
	})
	t.Run("NotAStructHasNoContract", func(t *testing.T) {
		t.Parallel()
		for _, typ := range []reflect.Type{
			reflect.TypeFor[map[string]any](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[any](),
			reflect.TypeFor[time.Time](), reflect.TypeFor[int](),
		} {
			require.Equal(t, map[string]string{}, runner.PayloadSchemaOf(typ, jobq.ScopeSystem), typ.String())
		}
	})
	t.Run("EveryKeyTheEncodingWrites", func(t *testing.T) {
		t.Parallel()
		// The contract names exactly the keys encoding/json writes for a value with every
		// optional field set.
		reason, page := "r", contractPaging{Page: 2}
		v := contractArgs{Reason: &reason, Limit: 1, Since: time.Now(), Tags: []string{}, Blob: []byte{1}, Meta: map[string]any{"a": 1},
			IP: net.IPv4(127, 0, 0, 1), Headers: map[string]string{}, Optional: &contractAudit{}, contractPaging: &page}
		body, err := json.Marshal(v)
		require.NoError(t, err)
		var keys map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(body, &keys))
		schema := runner.PayloadSchemaOf(reflect.TypeFor[contractArgs](), jobq.ScopeStore)
		named := map[string]bool{}
		for k := range schema {
			named[trimOptional(k)] = true
		}
		for k := range keys {
			require.True(t, named[k], "key %s is written but not in the contract %v", k, schema)
		}
		require.Len(t, named, len(keys), "the contract names a key the encoding never writes")
	})
}

func trimOptional(k string) string {
	if len(k) > 0 && k[len(k)-1] == '?' {
		return k[:len(k)-1]
	}
	return k
}

func TestTaskDefinition(t *testing.T) {
	t.Parallel()
	t.Run("FromNewTask", func(t *testing.T) {
		t.Parallel()
		task := runner.NewTask[Greeting]("greet", jobq.EnqueueOptions{
			Queue: "mail", Priority: -3, MaxAttempts: 4, Timeout: time.Minute, BackoffBase: time.Second,
			BackoffMax: time.Hour, JobKeyMode: jobq.JobKeyPreserveRunAt,
		}).WithDescription("Greets someone.")
		priority := int16(-3)
		require.Equal(t, jobq.TaskDefinition{
			Name: "greet", Scope: jobq.ScopeSystem, PayloadSchema: map[string]string{"name": "string", "count": "integer"},
			MaxAttempts: 4, Queue: "mail", Priority: &priority, Timeout: time.Minute, BackoffBase: time.Second,
			BackoffMax: time.Hour, Description: "Greets someone.",
		}, task.Definition())
		require.Equal(t, "greet", task.Name())
	})
	t.Run("FromNewStoreTaskWithZeroDefaults", func(t *testing.T) {
		t.Parallel()
		def := runner.NewStoreTask[AggregateDailySalesForStore]("aggregate-daily-sales-for-store", jobq.EnqueueOptions{}).Definition()
		// The store is an argument of Enqueue, not a field of the payload: the contract is the
		// payload's own keys.
		require.Equal(t, jobq.TaskDefinition{
			Name: "aggregate-daily-sales-for-store", Scope: jobq.ScopeStore,
			PayloadSchema: map[string]string{"targetDate": "string"},
		}, def)
	})
	t.Run("DefinitionIsACopy", func(t *testing.T) {
		t.Parallel()
		task := runner.NewTask[Greeting]("greet", jobq.EnqueueOptions{Priority: 1})
		def := task.Definition()
		def.PayloadSchema["name"] = "uuid"
		*def.Priority = 9
		require.Equal(t, "string", task.Definition().PayloadSchema["name"])
		require.Equal(t, int16(1), *task.Definition().Priority)
	})
}
