package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestTLS serves roomd with --tls-cert and --tls-key (a certificate made
// here for 127.0.0.1): the API answers over HTTPS, a socket opens over
// wss:// and gets its notice, plain HTTP on the same port is refused, and a
// missing key file stops the start with a message naming the flags.
func TestTLS(t *testing.T) {
	t.Parallel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "roomd test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalPKCS8PrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}

	addr := freeAddr(t)
	p := startRoomd(t, addr, "--memory", "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(p.URL, "https://") {
		t.Fatalf("roomd printed %s, not an https URL", p.URL)
	}
	resp, err := hc.Get(p.URL + "/api/games")
	if err != nil || resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Fatalf("GET /api/games over TLS: %v %v", resp, err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "wss://"+addr+"/ws", &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatalf("wss dial: %v", err)
	}
	ws.Write(ctx, websocket.MessageText, []byte(`{"type":"ping","t":1}`))
	if _, msg, err := ws.Read(ctx); err != nil || !strings.Contains(string(msg), "hello-first") {
		t.Fatalf("over wss: %s %v", msg, err)
	}
	ws.CloseNow()
	if resp, err := http.Get("http://" + addr + "/api/games"); err == nil && resp.StatusCode == http.StatusOK {
		t.Fatal("plain HTTP was served on the TLS port")
	}
	p.term()

	cmd := startFails(t, "--memory", "--addr", freeAddr(t), "--tls-cert", certFile, "--tls-key", filepath.Join(dir, "missing.pem"))
	if !strings.Contains(cmd, "--tls-cert/--tls-key") {
		t.Fatalf("a missing key file: %s", cmd)
	}
}

// startFails runs roomd with args, expects it to exit with an error within
// 10 s, and returns what it printed.
func startFails(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, roomdBinary(t), args...).CombinedOutput()
	if err == nil {
		t.Fatalf("roomd %v started and exited 0:\n%s", args, out)
	}
	return string(out)
}
