package tlsdev_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/tlsdev"
)

// TestHTTPSWithDevCA serves HTTPS with the development leaf and dials it:
// trusting the CA succeeds, not trusting it fails.
func TestHTTPSWithDevCA(t *testing.T) {
	res, err := tlsdev.EnsureCert(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tlsdev.LoadServerCert(res.Paths)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	defer srv.Close()
	url := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	caPEM, err := os.ReadFile(res.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("CA file is not PEM")
	}
	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, u := range []string{srv.URL, url} {
		resp, err := trusting.Get(u)
		if err != nil {
			t.Fatalf("GET %s with the CA: %v", u, err)
		}
		resp.Body.Close()
	}

	plain := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: x509.NewCertPool()}}}
	if _, err := plain.Get(srv.URL); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("GET without the CA: got %v, want a certificate error", err)
	}
}

func TestEnsureCertReusesAndRenews(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	first, err := tlsdev.EnsureCert(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	if !first.CreatedCA || !first.CreatedLeaf {
		t.Fatalf("first run: got %+v, want CA and leaf created", first)
	}
	caBefore, _ := os.ReadFile(first.CA)
	again, err := tlsdev.EnsureCert(dir, now.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if again.CreatedCA || again.CreatedLeaf {
		t.Fatalf("second run: got %+v, want both reused", again)
	}
	// 20 days before the leaf expires it is renewed, signed by the same CA.
	late, err := tlsdev.EnsureCert(dir, first.NotAfter.Add(-20*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if late.CreatedCA || !late.CreatedLeaf || !late.NotAfter.After(first.NotAfter) {
		t.Fatalf("near expiry: got %+v, want only the leaf renewed", late)
	}
	caAfter, _ := os.ReadFile(late.CA)
	if string(caBefore) != string(caAfter) {
		t.Fatal("CA changed on leaf renewal; clients would have to trust a new one")
	}
	info, _ := os.Stat(late.CertKey)
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("key mode %o, want 600", info.Mode().Perm())
	}
}
