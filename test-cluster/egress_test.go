package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestResolveDialsLoopbackOnly(t *testing.T) {
	p, err := newEgressProxy(filepath.Join(t.TempDir(), "egress.log"), serviceRange)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		target, dial, why string
	}{
		{"127.0.0.1:8443", "127.0.0.1:8443", ""},
		{"127.3.4.5:80", "127.3.4.5:80", ""},
		{"localhost:9443", "127.0.0.1:9443", ""},
		{"10.1.2.3:443", "", "outside 127.0.0.0/8 and the service range"},
		{"192.168.1.1:443", "", "outside 127.0.0.0/8 and the service range"},
		{"8.8.8.8:53", "", "outside 127.0.0.0/8 and the service range"},
		// A ClusterIP is mapped through its Service, which needs the API server.
		{"10.96.0.10:443", "", "not ready"},
		{"no-port", "", "missing port"},
	}
	for _, c := range cases {
		dial, _, why := p.resolve(c.target)
		if dial != c.dial || !strings.Contains(why, c.why) {
			t.Errorf("resolve(%q) = %q, %q; want %q and a reason containing %q", c.target, dial, why, c.dial, c.why)
		}
	}
}

func TestDialLoopbackRefusesAnyOtherAddress(t *testing.T) {
	// The check runs before the connection is made, so no packet leaves the machine.
	if _, err := dialLoopback("10.1.2.3:443"); err == nil || !strings.Contains(err.Error(), "outside 127.0.0.0/8") {
		t.Fatalf("dialLoopback(10.1.2.3:443) = %v; want a refusal", err)
	}
}

func TestTheSocketTableShowsThisProcesssConnectionWithItsPeer(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	conn, err := net.Dial("tcp4", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	inodes := socketInodes(os.Getpid())
	port := l.Addr().(*net.TCPAddr).Port
	for _, s := range readTCPTable("/proc/self/net/tcp") {
		if inodes[s.inode] && s.remote.Port == port && s.remote.IP.Equal(net.IPv4(127, 0, 0, 1)) {
			return
		}
	}
	t.Fatalf("no socket of this process with peer 127.0.0.1:%s in /proc/self/net/tcp", strconv.Itoa(port))
}

func TestProcAddressesAreReadWordByWord(t *testing.T) {
	cases := map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"0302010A:01BB":                         "10.1.2.3:443",
		"0000000000000000FFFF00000100007F:0050": "127.0.0.1:80",
		"00000000000000000000000001000000:0016": "[::1]:22",
	}
	for in, want := range cases {
		got, ok := parseProcAddr(in)
		if !ok || got.String() != want {
			t.Errorf("parseProcAddr(%q) = %v, %v; want %s", in, got.String(), ok, want)
		}
	}
}
