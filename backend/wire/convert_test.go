package wire

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/store"
)

// fill sets every field of v, recursively, to a value that is not zero, so
// that a field a conversion forgets shows in the JSON.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("s")
	case reflect.Int, reflect.Int64:
		if v.Type() == reflect.TypeFor[time.Duration]() {
			v.SetInt(int64(time.Second))
		} else {
			v.SetInt(7)
		}
	case reflect.Uint64:
		v.SetUint(9)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	}
}

func filled[T any]() T {
	var x T
	fill(reflect.ValueOf(&x).Elem())
	return x
}

// TestWireKeepsTheJSONOfTheDomainTypes: before backend/wire, the domain
// types went over the wire as they were. Each conversion must give exactly
// the JSON they gave, every field set, so clients see no change.
func TestWireKeepsTheJSONOfTheDomainTypes(t *testing.T) {
	detail := filled[service.SessionDetail]()
	cases := []struct {
		name         string
		domain, wire any
	}{
		{"ProviderStatus", filled[[]service.ProviderStatus](), FromProviders(filled[[]service.ProviderStatus]())},
		{"Defaults", filled[service.Defaults](), FromDefaults(filled[service.Defaults]())},
		{"Preset", filled[[]config.Preset](), FromPresets(filled[[]config.Preset]())},
		{"RunInfo", filled[service.RunInfo](), FromRunInfo(filled[service.RunInfo]())},
		{"CompareInfo", filled[service.CompareInfo](), FromCompareInfo(filled[service.CompareInfo]())},
		{"ComparisonRow", filled[[]service.ComparisonRow](), FromComparison(filled[[]service.ComparisonRow]())},
		{"Stats", filled[service.Stats](), FromStats(filled[service.Stats]())},
		{"SessionSummary", filled[[]store.SessionSummary](), FromSessions(filled[[]store.SessionSummary]())},
		{"SessionDetail", &detail, FromSessionDetail(&detail)},
		{"FolderListing", filled[service.FolderListing](), FromFolderListing(filled[service.FolderListing]())},
	}
	// Fields the wire added later, which the domain type does not send.
	wireOnly := map[string][]string{"Preset": {"tests"}}
	for _, c := range cases {
		want, _ := json.Marshal(c.domain)
		got, _ := json.Marshal(c.wire)
		if keys := wireOnly[c.name]; len(keys) > 0 {
			// Both as generic objects, whose keys marshal sorted.
			want, _ = json.Marshal(dropKeys(t, c.domain, nil, false))
			got, _ = json.Marshal(dropKeys(t, c.wire, keys, true))
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
	}
}

// dropKeys is v's JSON without the keys of its objects (or of the objects
// in its list) named in keys.
func dropKeys(t *testing.T, v any, keys []string, must bool) any {
	t.Helper()
	b, _ := json.Marshal(v)
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	for _, m := range list {
		for _, k := range keys {
			if _, ok := m[k]; !ok && must {
				t.Errorf("no %q in %s", k, b)
			}
			delete(m, k)
		}
	}
	return list
}

// TestEmptyListsAreNotNull: the generated TypeScript says T[], so a list is
// never null on the wire.
func TestEmptyListsAreNotNull(t *testing.T) {
	for name, v := range map[string]any{
		"providers":  FromProviders(nil),
		"sessions":   FromSessions(nil),
		"comparison": FromComparison(nil),
		"groups":     FromStats(service.Stats{}).Groups,
		"runs":       FromCompareInfo(service.CompareInfo{}).Runs,
		"folders":    FromFolderListing(service.FolderListing{}).Folders,
	} {
		if b, _ := json.Marshal(v); string(b) != "[]" {
			t.Errorf("%s: %s, want []", name, b)
		}
	}
}

// TestRunRequestJSON: the run request keeps the JSON the web UI, the
// desktop bindings and stored requests send, field for field.
func TestRunRequestJSON(t *testing.T) {
	const full = `{"session_id":"s","prompt":"p","provider":"fake","model":"m","base_url":"http://h/v1",` +
		`"max_iterations":3,"reflect":false,"timeout_seconds":2.5,"language":"sh","fresh":true,"retry":"r",` +
		`"allow_network":true,"stdin":"in","tests":"- stdin: x","mode":"workspace","workdir":"/w","validate":["v"],` +
		`"auditor":"a","task":{"instructions":"i","inputs":["in"],"constraints":["c"],"validate":["tv"]}}`
	var req CompareRequest
	if err := json.Unmarshal([]byte(`{"providers":["a","b"],`+full[1:]), &req); err != nil {
		t.Fatal(err)
	}
	if req.Mode != event.ModeWorkspace || req.TimeoutSeconds != 2.5 || *req.Reflect || req.Task.Validate[0] != "tv" {
		t.Errorf("decoded %+v", req)
	}
	got, err := json.Marshal(req.ToService().RunRequest)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != full {
		t.Errorf("encoded\n%s\nwant\n%s", got, full)
	}
	if b, _ := json.Marshal(RunRequest{Prompt: "p"}); string(b) != `{"prompt":"p"}` {
		t.Errorf("zero options: %s, want only the prompt", b)
	}
}
