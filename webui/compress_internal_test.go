package webui

import "testing"

func TestAcceptedQ(t *testing.T) {
	tests := []struct {
		name, header, coding string
		want                 float64
	}{
		{name: "Listed", header: "gzip, deflate, br", coding: "br", want: 1},
		{name: "NotListed", header: "gzip, deflate", coding: "br", want: 0},
		{name: "Empty", header: "", coding: "gzip", want: 0},
		{name: "Weighted", header: "br;q=0.5, gzip;q=0.8", coding: "br", want: 0.5},
		{name: "WeightWithSpaces", header: "gzip ; q=0.25", coding: "gzip", want: 0.25},
		{name: "Refused", header: "br;q=0, gzip", coding: "br", want: 0},
		{name: "RefusedDecimal", header: "br;q=0.000", coding: "br", want: 0},
		{name: "CaseInsensitive", header: "GZIP;Q=0.5", coding: "gzip", want: 0.5},
		{name: "XGzipIsGzip", header: "x-gzip", coding: "gzip", want: 1},
		{name: "Wildcard", header: "*", coding: "br", want: 1},
		{name: "OwnEntryBeatsWildcard", header: "*;q=0.3, br;q=0", coding: "br", want: 0},
		{name: "WildcardRefuses", header: "*;q=0", coding: "gzip", want: 0},
		{name: "MalformedWeight", header: "gzip;q=high", coding: "gzip", want: 0},
		{name: "WeightAboveOne", header: "gzip;q=2", coding: "gzip", want: 0},
		{name: "IdentityUnnamed", header: "br;q=0.5", coding: "identity", want: identityUnnamed},
		{name: "IdentityNoHeader", header: "", coding: "identity", want: identityUnnamed},
		{name: "IdentityNamed", header: "identity, br;q=0.5", coding: "identity", want: 1},
		{name: "IdentityRefused", header: "identity;q=0", coding: "identity", want: 0},
		{name: "IdentityRefusedByWildcard", header: "*;q=0", coding: "identity", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := acceptedQ(tt.header, tt.coding); got != tt.want {
				t.Errorf("acceptedQ(%q, %q) = %v, want %v", tt.header, tt.coding, got, tt.want)
			}
		})
	}
}
