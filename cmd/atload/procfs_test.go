package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseVmRSS(t *testing.T) {
	status := "Name:\tadventure-table\nVmPeak:\t 1300000 kB\nVmRSS:\t   48212 kB\nRssAnon:\t   30000 kB\n"
	got, err := parseVmRSS(strings.NewReader(status))
	if err != nil || got != 48212 {
		t.Fatalf("got %d, %v, want 48212", got, err)
	}
	if _, err := parseVmRSS(strings.NewReader("Name:\tx\n")); err == nil {
		t.Fatal("got no error for a status without VmRSS")
	}
}

func TestParseOpenFilesLimit(t *testing.T) {
	limits := `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`
	soft, hard, err := parseOpenFilesLimit(strings.NewReader(limits))
	if err != nil || soft != 1024 || hard != 524288 {
		t.Fatalf("got %d %d %v, want 1024 524288", soft, hard, err)
	}
	soft, hard, err = parseOpenFilesLimit(strings.NewReader("Max open files            unlimited            unlimited            files\n"))
	if err != nil || soft != -1 || hard != -1 {
		t.Fatalf("got %d %d %v, want -1 -1", soft, hard, err)
	}
}

func TestPercentile(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	d := summarize(lat)
	if d.N != 100 || d.P50 != 50 || d.P90 != 90 || d.P99 != 99 || d.Max != 100 {
		t.Fatalf("got %+v", d)
	}
	if got := percentile(nil, 0.99); got != 0 {
		t.Fatalf("empty: got %v, want 0", got)
	}
	if got := percentile([]time.Duration{7}, 0.5); got != 7 {
		t.Fatalf("one: got %v, want 7", got)
	}
}

func TestParseMarker(t *testing.T) {
	tests := []struct {
		text string
		want marker
		ok   bool
	}{
		{"atload p=12 t=1700000000000000000", marker{kind: 'p', n: 12, sent: time.Unix(0, 1700000000000000000)}, true},
		{"The wind howls. atload w=1 t=5", marker{kind: 'w', n: 1, sent: time.Unix(0, 5)}, true},
		{"hello", marker{}, false},
		{"atload p=x t=1", marker{}, false},
	}
	for _, tt := range tests {
		got, ok := parseMarker(tt.text)
		if ok != tt.ok || (ok && (got.kind != tt.want.kind || got.n != tt.want.n || !got.sent.Equal(tt.want.sent))) {
			t.Errorf("parseMarker(%q) = %+v, %v; want %+v, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseStatCPU(t *testing.T) {
	stat := "4242 (adventure (x) table) S 1 4242 4242 0 -1 4194560 9000 0 0 0 250 50 0 0 20 0 12 0 100 1300000000 12000 18446744073709551615"
	got, err := parseStatCPU(stat)
	if err != nil || got != 3*time.Second {
		t.Fatalf("got %v, %v, want 3s", got, err)
	}
	if _, err := parseStatCPU("4242 (x) S 1"); err == nil {
		t.Fatal("got no error for a short line")
	}
}
