package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// liveClassroom is a class whose server has two ready profiles (fake,
// fake2) and one that is not set up (broken: building it fails), the
// instructor's business alone.
func liveClassroom(t *testing.T) *classroom {
	t.Helper()
	home := t.TempDir()
	cfg, err := config.Load(config.Options{LookupEnv: func(k string) (string, bool) {
		if k == "LOOPFORGE_HOME" {
			return home, true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	reg := service.DefaultRegistry()
	cfg.Order = nil
	for _, name := range []string{"fake", "fake2", "broken"} {
		cfg.Profiles[name] = provider.Profile{Name: name, Kind: name}
		cfg.Order = append(cfg.Order, name)
		reg[name] = func(provider.Profile) (provider.Provider, error) { return wordModel{}, nil }
	}
	reg["broken"] = func(provider.Profile) (provider.Provider, error) {
		return nil, errors.New("BROKEN_API_KEY is not set")
	}
	svc, err := service.New(context.Background(), service.Options{Config: cfg, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	ts, tok := apiServer(t, svc)
	v, err := svc.OpenClass(context.Background(), service.ClassOptions{Name: "Turma B", JoinURL: ts.URL + "/join"})
	if err != nil {
		t.Fatal(err)
	}
	return &classroom{svc: svc, ts: ts, tok: tok, class: v}
}

func (c *classroom) providerNames(t *testing.T, cred string) (names []string, body string) {
	t.Helper()
	status, b := c.call(t, cred, "GET", "/api/providers", "")
	var ps []wire.ProviderStatus
	if status != ok || json.Unmarshal(b, &ps) != nil {
		t.Fatalf("providers as %s: %d %s", cred, status, b)
	}
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return names, string(b)
}

// TestStudentProvidersAreTheClasss: a student's list has only what the
// class offers: with no list, the ready profiles (not the instructor's
// broken one, nor its note); with a list, only the named ones.
func TestStudentProvidersAreTheClasss(t *testing.T) {
	c := liveClassroom(t)
	ana := c.join(t, "Ana")
	if names, _ := c.providerNames(t, "instructor"); !slices.Equal(names, []string{"fake", "fake2", "broken"}) {
		t.Fatalf("the instructor's providers: %v", names)
	}
	names, body := c.providerNames(t, ana.token)
	if !slices.Equal(names, []string{"fake", "fake2"}) || containsAny(body, "BROKEN_API_KEY", "broken", "not available") {
		t.Errorf("a student's providers with the class offering every ready one: %s", body)
	}
	if status, b := c.call(t, "instructor", "PUT", "/api/class/limits", `{"providers":["fake2"],"presets":[],"max_iterations":3}`); status != ok {
		t.Fatalf("limits: %d %s", status, b)
	}
	status, b := c.call(t, ana.token, "GET", "/api/providers", "")
	var ps []wire.ProviderStatus
	if status != ok || json.Unmarshal(b, &ps) != nil || len(ps) != 1 || ps[0].Name != "fake2" || !ps[0].Default {
		t.Errorf("a student's providers with the class offering fake2: %d %s; want fake2 alone, as the default", status, b)
	}
	var d wire.Defaults
	status, b = c.call(t, ana.token, "GET", "/api/defaults", "")
	if status != ok || json.Unmarshal(b, &d) != nil || d.Provider != "fake2" || d.MaxIterationsLimit != 3 || d.MaxIterations > 3 {
		t.Errorf("a student's defaults: %d %s; want provider fake2, cap 3", status, b)
	}
}

func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(x string) bool { return strings.Contains(s, x) })
}

// TestLimitsReachAnOpenStudentPage: the instructor changes the limits, the
// pause and the assignment; a student's socket, open all along, gets each
// as a class_state carrying what its form needs (the providers, presets,
// iteration cap and pause), without asking.
func TestLimitsReachAnOpenStudentPage(t *testing.T) {
	c := liveClassroom(t)
	ana := c.join(t, "Ana")
	pupil := c.dialAs(t, ana.token)
	_ = pupil.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribeClass})
	first := classState(t, pupil, func(wire.ClassView) bool { return true })
	if first.IterationCap != 5 || first.Limits.MaxIterations != 5 || len(first.Limits.Providers) != 0 {
		t.Fatalf("a new class as a student sees it: %+v; want the default cap of 5, every provider", first)
	}

	if status, b := c.call(t, "instructor", "PUT", "/api/class/limits",
		`{"providers":["fake2"],"presets":["data-structures-en"],"max_iterations":3}`); status != ok {
		t.Fatalf("limits: %d %s", status, b)
	}
	v := classState(t, pupil, func(v wire.ClassView) bool { return v.IterationCap == 3 })
	if !slices.Equal(v.Limits.Providers, []string{"fake2"}) || !slices.Equal(v.Limits.Presets, []string{"data-structures-en"}) ||
		v.Limits.MaxIterations != 3 || v.JoinCode != "" {
		t.Errorf("the class_state after the limits changed: %+v", v)
	}

	// No iteration limit: the cap is the server's own.
	if status, b := c.call(t, "instructor", "PUT", "/api/class/limits", `{"providers":[],"presets":[],"max_iterations":0}`); status != ok {
		t.Fatalf("limits: %d %s", status, b)
	}
	classState(t, pupil, func(v wire.ClassView) bool {
		return v.IterationCap == config.MaxIterationsLimit && len(v.Limits.Providers) == 0
	})

	if status, b := c.call(t, "instructor", "PUT", "/api/class/pause", `{"paused":true}`); status != ok {
		t.Fatalf("pause: %d %s", status, b)
	}
	classState(t, pupil, func(v wire.ClassView) bool { return v.Paused })
}

// classState reads the class stream until a class_state matches.
func classState(t *testing.T, ws *websocket.Conn, match func(wire.ClassView) bool) wire.ClassView {
	t.Helper()
	var v wire.ClassView
	readClass(t, ws, func(typ string, p json.RawMessage) bool {
		v = wire.ClassView{}
		return typ == wire.ClassStateType && json.Unmarshal(p, &v) == nil && match(v)
	})
	return v
}
