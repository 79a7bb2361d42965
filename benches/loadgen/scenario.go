// The scenario mode: a load described in a file, k6-style.
//
//	loadgen scenario -url http://127.0.0.1:P/ -file benches/scenarios/search-heavy.json
//
// The file (JSON) names stages, each a duration and a target number of virtual users
// reached by a straight ramp from the previous stage's target (the first starts at 0),
// a think time each user waits between requests, and a weighted mix of GET requests
// whose paths may hold {term} (a random entry of "terms", URL-escaped) and {id} (a random
// whole number in the inclusive range "ids"). Each user keeps its connection and sends
// a phone's Accept-Encoding. Prints one JSON object: requests, errors, req/s and p50/p99
// per request name.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type stage struct {
	Duration string `json:"duration"`
	Target   int    `json:"target"`
	Note     string `json:"note"`
	length   time.Duration
}

type request struct {
	Name   string `json:"name"`
	Weight int    `json:"weight"`
	Path   string `json:"path"`
}

type scenario struct {
	Description string    `json:"description"`
	Recipes     string    `json:"recipes"`
	Stages      []stage   `json:"stages"`
	Think       string    `json:"think"`
	Requests    []request `json:"requests"`
	Terms       []string  `json:"terms"`
	IDs         []int     `json:"ids"`
	think       time.Duration
	totalWeight int
}

// loadScenario reads and checks a scenario file; every problem names the file and field.
func loadScenario(path string) (*scenario, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var s scenario
	if err := dec.Decode(&s); err != nil {
		if syn, ok := err.(*json.SyntaxError); ok {
			line := 1 + strings.Count(string(raw[:syn.Offset]), "\n")
			return nil, fmt.Errorf("%s: line %d: %v", path, line, err)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("%s: %s: %s", path, field, fmt.Sprintf(format, a...))
	}
	if len(s.Stages) == 0 {
		return nil, bad("stages", "at least one stage is needed")
	}
	for i := range s.Stages {
		st := &s.Stages[i]
		d, err := time.ParseDuration(st.Duration)
		if err != nil || d <= 0 {
			return nil, bad(fmt.Sprintf("stages[%d].duration", i), "%q is not a positive duration such as \"10s\"", st.Duration)
		}
		if st.Target < 0 {
			return nil, bad(fmt.Sprintf("stages[%d].target", i), "%d users is negative", st.Target)
		}
		st.length = d
	}
	if s.Think != "" {
		if s.think, err = time.ParseDuration(s.Think); err != nil || s.think < 0 {
			return nil, bad("think", "%q is not a duration such as \"100ms\"", s.Think)
		}
	}
	if len(s.Requests) == 0 {
		return nil, bad("requests", "at least one request is needed")
	}
	for i, r := range s.Requests {
		field := fmt.Sprintf("requests[%d]", i)
		switch {
		case r.Name == "":
			return nil, bad(field+".name", "missing")
		case r.Weight <= 0:
			return nil, bad(field+".weight", "%d is not a positive weight", r.Weight)
		case !strings.HasPrefix(r.Path, "/"):
			return nil, bad(field+".path", "%q does not start with /", r.Path)
		case strings.Contains(r.Path, "{term}") && len(s.Terms) == 0:
			return nil, bad(field+".path", "uses {term} but \"terms\" is empty")
		case strings.Contains(r.Path, "{id}") && (len(s.IDs) != 2 || s.IDs[0] > s.IDs[1]):
			return nil, bad(field+".path", "uses {id} but \"ids\" is not a range [first, last]")
		}
		s.totalWeight += r.Weight
	}
	return &s, nil
}

// usersAt is the number of users the stages ask for at time t since the start.
func (s *scenario) usersAt(t time.Duration) int {
	from := 0
	for _, st := range s.Stages {
		if t < st.length {
			frac := float64(t) / float64(st.length)
			return from + int(float64(st.Target-from)*frac+0.5)
		}
		t -= st.length
		from = st.Target
	}
	return 0
}

func (s *scenario) total() time.Duration {
	var d time.Duration
	for _, st := range s.Stages {
		d += st.length
	}
	return d
}

// pick chooses a request by weight and fills in its path.
func (s *scenario) pick(rng *rand.Rand) (string, string) {
	n := rng.Intn(s.totalWeight)
	r := s.Requests[len(s.Requests)-1]
	for _, c := range s.Requests {
		if n < c.Weight {
			r = c
			break
		}
		n -= c.Weight
	}
	path := r.Path
	if strings.Contains(path, "{term}") {
		path = strings.ReplaceAll(path, "{term}", url.QueryEscape(s.Terms[rng.Intn(len(s.Terms))]))
	}
	if strings.Contains(path, "{id}") {
		id := s.IDs[0] + rng.Intn(s.IDs[1]-s.IDs[0]+1)
		path = strings.ReplaceAll(path, "{id}", strconv.Itoa(id))
	}
	return r.Name, path
}

func scenarioCmd(args []string) {
	fs := flag.NewFlagSet("scenario", flag.ExitOnError)
	base := fs.String("url", "", "server base URL")
	file := fs.String("file", "", "scenario file (JSON)")
	_ = fs.Parse(args)
	s, err := loadScenario(*file)
	if err != nil {
		fail(err.Error())
	}
	root := strings.TrimSuffix(*base, "/")
	rec := &recorder{lat: map[string][]time.Duration{}}
	var errs, non2xx atomic.Int64
	var firstErr atomic.Value
	var wire atomic.Int64

	user := func(ctx context.Context, seed int64) {
		rng := rand.New(rand.NewSource(seed))
		c := newClient(&wire, 1)
		defer c.CloseIdleConnections()
		for ctx.Err() == nil {
			name, path := s.pick(rng)
			t0 := time.Now()
			f, _, err := get(c, root+path, phone)
			if err != nil {
				if ctx.Err() == nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
				continue
			}
			rec.add(name, time.Since(t0))
			if f.Status < 200 || f.Status > 299 {
				non2xx.Add(1)
				firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: status %d", path, f.Status))
			}
			select {
			case <-ctx.Done():
			case <-time.After(s.think):
			}
		}
	}

	var wg sync.WaitGroup
	var running []context.CancelFunc
	maxUsers, seed := 0, int64(1)
	start := time.Now()
	for tick := time.NewTicker(50 * time.Millisecond); ; <-tick.C {
		elapsed := time.Since(start)
		if elapsed >= s.total() {
			tick.Stop()
			break
		}
		want := s.usersAt(elapsed)
		for len(running) < want {
			ctx, cancel := context.WithCancel(context.Background())
			running = append(running, cancel)
			wg.Add(1)
			go func(seed int64) { defer wg.Done(); user(ctx, seed) }(seed)
			seed++
		}
		for len(running) > want {
			running[len(running)-1]()
			running = running[:len(running)-1]
		}
		if len(running) > maxUsers {
			maxUsers = len(running)
		}
	}
	for _, cancel := range running {
		cancel()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()

	kinds := map[string]any{}
	total := 0
	for name, ds := range rec.lat {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		total += len(ds)
		kinds[name] = map[string]any{"requests": len(ds), "p50_ms": pct(ds, .5), "p99_ms": pct(ds, .99)}
	}
	out := map[string]any{"scenario": *file, "seconds": elapsed, "max_users": maxUsers, "requests": total,
		"req_per_sec": float64(total) / elapsed, "errors": errs.Load(), "non_2xx": non2xx.Load(),
		"mib_per_sec": float64(wire.Load()) / (1 << 20) / elapsed, "by_request": kinds}
	if e := firstErr.Load(); e != nil {
		out["first_error"] = e
	}
	emit(out)
}
