// Package tlsdev makes a development certificate authority and a localhost
// certificate signed by it, so the MCP endpoint can be served over HTTPS on
// a laptop and clients can be told to trust one CA file. Development only.
package tlsdev

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Hosts are the names the development certificate covers.
var Hosts = []string{"localhost", "127.0.0.1", "::1"}

const (
	caLifetime   = 10 * 365 * 24 * time.Hour
	leafLifetime = 365 * 24 * time.Hour
	// renewBefore renews a certificate this long before it expires, so a
	// running laptop setup never meets an expired one.
	renewBefore = 30 * 24 * time.Hour
)

// Paths names the files EnsureCert keeps in its directory.
type Paths struct {
	CA      string // the CA certificate clients must trust
	CAKey   string
	Cert    string // the server certificate
	CertKey string
}

// Result says where the files are and what EnsureCert did.
type Result struct {
	Paths
	CreatedCA   bool
	CreatedLeaf bool
	NotAfter    time.Time // leaf expiry
}

// PathsIn returns the file names inside dir.
func PathsIn(dir string) Paths {
	return Paths{
		CA:      filepath.Join(dir, "ca.pem"),
		CAKey:   filepath.Join(dir, "ca-key.pem"),
		Cert:    filepath.Join(dir, "localhost.pem"),
		CertKey: filepath.Join(dir, "localhost-key.pem"),
	}
}

// EnsureCert makes sure dir holds a CA and a leaf for Hosts that stay valid
// for at least 30 more days at now, reusing what is there when it is still
// good and renewing what is not.
func EnsureCert(dir string, now time.Time) (Result, error) {
	res := Result{Paths: PathsIn(dir)}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return res, fmt.Errorf("create cert dir: %w", err)
	}
	ca, caKey, err := loadPair(res.CA, res.CAKey)
	if err != nil || !ca.IsCA || now.Add(renewBefore).After(ca.NotAfter) {
		ca, caKey, err = newCA(now)
		if err != nil {
			return res, err
		}
		if err := writePair(res.CA, res.CAKey, ca.Raw, caKey); err != nil {
			return res, err
		}
		res.CreatedCA = true
	}
	leaf, _, err := loadPair(res.Cert, res.CertKey)
	if res.CreatedCA || err != nil || !leafIsGood(leaf, ca, now) {
		der, key, err := newLeaf(ca, caKey, now)
		if err != nil {
			return res, err
		}
		if err := writePair(res.Cert, res.CertKey, der, key); err != nil {
			return res, err
		}
		if leaf, err = x509.ParseCertificate(der); err != nil {
			return res, err
		}
		res.CreatedLeaf = true
	}
	res.NotAfter = leaf.NotAfter
	return res, nil
}

// LoadServerCert loads the leaf as a tls.Certificate, with the CA in the chain.
func LoadServerCert(p Paths) (tls.Certificate, error) {
	return tls.LoadX509KeyPair(p.Cert, p.CertKey)
}

func leafIsGood(leaf, ca *x509.Certificate, now time.Time) bool {
	if now.Add(renewBefore).After(leaf.NotAfter) || now.Before(leaf.NotBefore) {
		return false
	}
	if err := leaf.CheckSignatureFrom(ca); err != nil {
		return false
	}
	for _, h := range Hosts {
		if leaf.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

func newCA(now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Organization: []string{"Adventure Table development"}, CommonName: "Adventure Table development CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caLifetime),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("create CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

func newLeaf(ca *x509.Certificate, caKey *ecdsa.PrivateKey, now time.Time) ([]byte, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{Organization: []string{"Adventure Table development"}, CommonName: "localhost"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(leafLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("create leaf certificate: %w", err)
	}
	return der, key, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

func loadPair(certPath, keyPath string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, err
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, errors.New("not PEM")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok || !pub.Equal(&key.PublicKey) {
		return nil, nil, errors.New("key does not match certificate")
	}
	return cert, key, nil
}

func writePair(certPath, keyPath string, der []byte, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := writeAtomic(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return err
	}
	return writeAtomic(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

// writeAtomic writes through a temp file and rename, so a crash never leaves
// half a certificate behind.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// TrustHelp explains how to make common clients trust the CA.
func TrustHelp(caPath string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Development CA: %s\n", caPath)
	fmt.Fprintf(&b, "  Node.js (MCP clients): NODE_EXTRA_CA_CERTS=%s node your-client.mjs\n", caPath)
	fmt.Fprintf(&b, "    (if NODE_EXTRA_CA_CERTS is already set, put both files into one bundle: cat \"$NODE_EXTRA_CA_CERTS\" %s > bundle.pem)\n", caPath)
	fmt.Fprintf(&b, "  curl: curl --cacert %s https://localhost:8443/api/health\n", caPath)
	fmt.Fprintf(&b, "  Go: add the file to tls.Config.RootCAs\n")
	return b.String()
}
