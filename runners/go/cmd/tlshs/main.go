// Command cryptobench-tlshs measures what a TLS 1.3 handshake costs with Go's crypto/tls, for the
// channel scenario (python/cryptobench/scenarios/channel/kex.py). Two processes on loopback, so
// the server's CPU time is its own process's (the scenario reads /proc/PID/stat, as it does for
// openssl s_server):
//
//	cryptobench-tlshs server -cert F -key F -group G      prints "listening ADDR", serves until killed
//	cryptobench-tlshs client -addr A -ca F -group G -seconds S [-max N]
//
// Every connection is a full handshake: the client keeps no session cache and the server sends
// no session tickets, so nothing is resumed and no ticket bytes follow the handshake. The client
// offers exactly the one group asked for (one key share), or Go's defaults for "default". After
// its handshake the server writes one byte and the client reads it, so the server's handshake has
// finished before the client closes. The client prints one JSON object: handshakes, wall time,
// the negotiated group, and the bytes of the last handshake in each direction (counted at the
// TCP connection when the client's Handshake returns: its Finished is written, the server's whole
// flight has been read), and the ClientHello's size (what the client wrote before its first read).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"time"
)

var groups = map[string][]tls.CurveID{
	"X25519":             {tls.X25519},
	"X25519MLKEM768":     {tls.X25519MLKEM768},
	"SecP256r1MLKEM768":  {tls.SecP256r1MLKEM768},
	"SecP384r1MLKEM1024": {tls.SecP384r1MLKEM1024},
	"P-256":              {tls.CurveP256},
	"default":            nil, // Go's defaults (from Go 1.26: the hybrids and X25519, two key shares)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "cryptobench-tlshs: "+format+"\n", args...)
	os.Exit(2)
}

func groupFlag(name string) []tls.CurveID {
	g, ok := groups[name]
	if !ok {
		known := make([]string, 0, len(groups))
		for k := range groups {
			known = append(known, k)
		}
		fail("unknown group %q (known: %s)", name, strings.Join(known, ", "))
	}
	return g
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: cryptobench-tlshs server|client [flags]")
	}
	switch os.Args[1] {
	case "server":
		server(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		fail("unknown command %q (server or client)", os.Args[1])
	}
}

func server(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	certFile := fs.String("cert", "", "server certificate (PEM)")
	keyFile := fs.String("key", "", "its private key (PEM)")
	group := fs.String("group", "X25519", "the one group the server accepts")
	addr := fs.String("addr", "127.0.0.1:0", "where to listen (loopback)")
	fs.Parse(args)
	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		fail("server certificate: %v", err)
	}
	cfg := &tls.Config{
		Certificates:           []tls.Certificate{cert},
		MinVersion:             tls.VersionTLS13,
		CurvePreferences:       groupFlag(*group),
		SessionTicketsDisabled: true,
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fail("listen: %v", err)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	os.Stdout.Sync()
	for {
		c, err := ln.Accept()
		if err != nil {
			fail("accept: %v", err)
		}
		go func(c net.Conn) {
			defer c.Close()
			t := tls.Server(c, cfg)
			if err := t.Handshake(); err != nil {
				fmt.Fprintf(os.Stderr, "handshake: %v\n", err)
				return
			}
			t.Write([]byte{1})
		}(c)
	}
}

// counting wraps the TCP connection: bytes each way, and the bytes written before the first read
// (the ClientHello: Go writes it in one flush before it waits for the ServerHello).
type counting struct {
	net.Conn
	written, read int
	hello         int
	readOnce      bool
}

func (c *counting) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written += n
	if !c.readOnce {
		c.hello += n
	}
	return n, err
}

func (c *counting) Read(p []byte) (int, error) {
	c.readOnce = true
	n, err := c.Conn.Read(p)
	c.read += n
	return n, err
}

type result struct {
	Handshakes       int     `json:"handshakes"`
	WallS            float64 `json:"wall_s"`
	Group            string  `json:"group"`
	ClientHello      int     `json:"client_hello_bytes"`
	ClientToServer   int     `json:"client_to_server_bytes"`
	ServerToClient   int     `json:"server_to_client_bytes"`
	CertificateAlg   string  `json:"certificate"`
	GoVersionRuntime string  `json:"go"`
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "", "the server's address")
	caFile := fs.String("ca", "", "the CA that signed the server's certificate (PEM)")
	group := fs.String("group", "X25519", "the one group the client offers, or default")
	seconds := fs.Float64("seconds", 2, "handshake for this long")
	maxN := fs.Int("max", 0, "stop after this many handshakes (0: no limit)")
	fs.Parse(args)
	pem, err := os.ReadFile(*caFile)
	if err != nil {
		fail("CA: %v", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		fail("CA: no certificate in %s", *caFile)
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		fail("-addr: %v", err)
	}
	cfg := &tls.Config{
		RootCAs:          roots,
		ServerName:       host,
		MinVersion:       tls.VersionTLS13,
		CurvePreferences: groupFlag(*group),
	}
	if host == "127.0.0.1" {
		// The throw-away certificates name no address; verify the chain, not the name.
		cfg.ServerName = ""
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, c := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		}
	}
	r := result{GoVersionRuntime: runtime.Version()}
	began := time.Now()
	deadline := began.Add(time.Duration(*seconds * float64(time.Second)))
	for time.Now().Before(deadline) && (*maxN == 0 || r.Handshakes < *maxN) {
		if err := once(*addr, cfg, &r); err != nil {
			fail("handshake %d: %v", r.Handshakes+1, err)
		}
		r.Handshakes++
	}
	r.WallS = time.Since(began).Seconds()
	json.NewEncoder(os.Stdout).Encode(r)
}

func once(addr string, cfg *tls.Config, r *result) error {
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	conn := &counting{Conn: raw}
	t := tls.Client(conn, cfg)
	defer t.Close()
	t.SetDeadline(time.Now().Add(10 * time.Second))
	if err := t.Handshake(); err != nil {
		return err
	}
	r.ClientHello, r.ClientToServer, r.ServerToClient = conn.hello, conn.written, conn.read
	st := t.ConnectionState()
	r.Group = st.CurveID.String()
	r.CertificateAlg = st.PeerCertificates[0].PublicKeyAlgorithm.String()
	var b [1]byte
	if _, err := io.ReadFull(t, b[:]); err != nil {
		return errors.Join(errors.New("the server's byte after its handshake"), err)
	}
	return nil
}
