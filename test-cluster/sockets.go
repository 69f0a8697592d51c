package main

import (
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// watchSockets is the check behind the egress proxy: every 100 ms it reads the TCP sockets of
// the given processes (this one and kube-controller-manager) and records in DIR/egress.log any
// whose peer is outside 127.0.0.0/8. A dial that bypassed the egress selector shows up there,
// so the tests can assert there is none. A connection to an unreachable address stays in
// SYN-SENT for seconds, long enough to be seen.
func watchSockets(p *egressProxy, pids func() []int, stop <-chan struct{}) {
	seen := map[string]bool{}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		inodes := map[string]bool{}
		for _, pid := range pids() {
			for inode := range socketInodes(pid) {
				inodes[inode] = true
			}
		}
		for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
			for _, s := range readTCPTable(table) {
				if !inodes[s.inode] || s.remote.IP.IsUnspecified() || s.remote.IP.IsLoopback() {
					continue
				}
				key := s.inode + " " + s.remote.String()
				if seen[key] {
					continue
				}
				seen[key] = true
				p.record(egressRecord{
					Requested: s.remote.String(), Verdict: "unexpected-socket",
					Why: "a socket of the control plane whose peer is outside 127.0.0.0/8 (state " + s.state + ")",
				})
			}
		}
	}
}

func socketInodes(pid int) map[string]bool {
	out := map[string]bool{}
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			out[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	return out
}

type tcpSocket struct {
	remote net.TCPAddr
	state  string
	inode  string
}

// readTCPTable parses /proc/net/tcp or tcp6: addresses are hex, each 32-bit word in host
// (little-endian) order.
func readTCPTable(path string) []tcpSocket {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []tcpSocket
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 {
			continue
		}
		remote, ok := parseProcAddr(f[2])
		if !ok {
			continue
		}
		out = append(out, tcpSocket{remote: remote, state: f[3], inode: f[9]})
	}
	return out
}

func parseProcAddr(s string) (net.TCPAddr, bool) {
	hostHex, portHex, found := strings.Cut(s, ":")
	raw, err := hex.DecodeString(hostHex)
	if !found || err != nil || len(raw)%4 != 0 {
		return net.TCPAddr{}, false
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return net.TCPAddr{}, false
	}
	ip := make(net.IP, len(raw))
	for w := 0; w < len(raw); w += 4 {
		for i := 0; i < 4; i++ {
			ip[w+i] = raw[w+3-i]
		}
	}
	return net.TCPAddr{IP: ip, Port: int(port)}, true
}
