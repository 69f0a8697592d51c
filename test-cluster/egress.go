package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The API server dials webhooks, aggregated APIs, kubelets and Service proxies through its
// egress selector ("cluster" and "controlplane"). Both are pointed at egressProxy, an HTTP
// CONNECT proxy on a Unix socket that dials 127.0.0.0/8 only, so nothing installed on this
// cluster can make the control plane reach another machine: a Service's ClusterIP is mapped to
// loopback or refused, never dialled. Every CONNECT is written to DIR/egress.log.
const egressConfigYAML = `apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
  - name: cluster
    connection:
      proxyProtocol: HTTPConnect
      transport:
        uds:
          udsName: %[1]s
  - name: controlplane
    connection:
      proxyProtocol: HTTPConnect
      transport:
        uds:
          udsName: %[1]s
  - name: etcd
    connection:
      proxyProtocol: Direct
`

var loopback = net.IPNet{IP: net.IPv4(127, 0, 0, 0), Mask: net.CIDRMask(8, 32)}

// egressRecord is one line of DIR/egress.log: what the API server asked for and what was done.
type egressRecord struct {
	Time      string `json:"time"`
	Requested string `json:"requested"`
	Service   string `json:"service,omitempty"`
	Dialed    string `json:"dialed,omitempty"`
	Verdict   string `json:"verdict"` // dialed | refused | unexpected-socket
	Why       string `json:"why,omitempty"`
}

type egressProxy struct {
	serviceRange *net.IPNet
	client       *kubernetes.Clientset // set once the API server answers; ClusterIPs are refused before
	clientMu     sync.Mutex
	logMu        sync.Mutex
	log          *os.File
}

func newEgressProxy(logPath, serviceCIDR string) (*egressProxy, error) {
	_, cidr, err := net.ParseCIDR(serviceCIDR)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &egressProxy{serviceRange: cidr, log: f}, nil
}

func (p *egressProxy) setClient(c *kubernetes.Clientset) {
	p.clientMu.Lock()
	defer p.clientMu.Unlock()
	p.client = c
}

func (p *egressProxy) record(r egressRecord) {
	r.Time = time.Now().UTC().Format(time.RFC3339Nano)
	line, _ := json.Marshal(r)
	p.logMu.Lock()
	defer p.logMu.Unlock()
	_, _ = p.log.Write(append(line, '\n'))
}

// serve accepts CONNECT requests on the Unix socket until the listener is closed.
func (p *egressProxy) serve(l net.Listener) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go p.handle(conn)
	}
}

func (p *egressProxy) handle(conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil || req.Method != http.MethodConnect {
		_, _ = io.WriteString(conn, "HTTP/1.1 405 Method Not Allowed\r\n\r\n")
		conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	rec := egressRecord{Requested: req.Host}
	target, service, why := p.resolve(req.Host)
	rec.Service = service
	if target == "" {
		rec.Verdict, rec.Why = "refused", why
		p.record(rec)
		_, _ = io.WriteString(conn, "HTTP/1.1 403 Forbidden\r\n\r\n")
		conn.Close()
		return
	}
	upstream, err := dialLoopback(target)
	rec.Dialed = target
	if err != nil {
		rec.Verdict, rec.Why = "refused", err.Error()
		p.record(rec)
		_, _ = io.WriteString(conn, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		conn.Close()
		return
	}
	rec.Verdict = "dialed"
	p.record(rec)
	_, _ = io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
	go func() { _, _ = io.Copy(upstream, conn); closeWrite(upstream) }()
	_, _ = io.Copy(conn, upstream)
	conn.Close()
	upstream.Close()
}

func closeWrite(c net.Conn) {
	if tcp, ok := c.(*net.TCPConn); ok {
		_ = tcp.CloseWrite()
	}
}

// resolve maps a CONNECT target to a loopback host:port, or says why it is refused. A
// loopback address passes as it is; a name must resolve to loopback only (an ExternalName
// Service for localhost); a ClusterIP becomes 127.0.0.1 with its Service's numeric targetPort.
func (p *egressProxy) resolve(hostPort string) (target, service, why string) {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return "", "", err.Error()
	}
	ip := net.ParseIP(host)
	if ip == nil {
		addrs, err := net.DefaultResolver.LookupIPAddr(context.Background(), host)
		if err != nil {
			return "", "", err.Error()
		}
		for _, a := range addrs {
			if a.IP.To4() != nil && !loopback.Contains(a.IP) {
				return "", "", fmt.Sprintf("%s resolves to %s, outside 127.0.0.0/8", host, a.IP)
			}
			if a.IP.To4() != nil && ip == nil {
				ip = a.IP
			}
		}
		if ip == nil {
			return "", "", host + " has no IPv4 loopback address"
		}
	}
	if loopback.Contains(ip) {
		return net.JoinHostPort(ip.String(), port), "", ""
	}
	if !p.serviceRange.Contains(ip) {
		return "", "", ip.String() + " is outside 127.0.0.0/8 and the service range"
	}
	return p.clusterIPToLoopback(ip, port)
}

func (p *egressProxy) clusterIPToLoopback(ip net.IP, port string) (target, service, why string) {
	p.clientMu.Lock()
	client := p.client
	p.clientMu.Unlock()
	if client == nil {
		return "", "", "the API server is not ready yet"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	services, err := client.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", "", "listing Services: " + err.Error()
	}
	for _, svc := range services.Items {
		if !hasClusterIP(svc, ip) {
			continue
		}
		name := svc.Namespace + "/" + svc.Name
		for _, sp := range svc.Spec.Ports {
			if strconv.Itoa(int(sp.Port)) != port {
				continue
			}
			target := sp.TargetPort.IntValue()
			if sp.TargetPort.StrVal != "" || target == 0 {
				return "", name, fmt.Sprintf("port %s has the named targetPort %q: no Pod runs here to "+
					"resolve it; point the Service at a loopback listener instead (type ExternalName, "+
					"externalName localhost)", port, sp.TargetPort.StrVal)
			}
			return net.JoinHostPort("127.0.0.1", strconv.Itoa(target)), name, ""
		}
		return "", name, "the Service has no port " + port
	}
	return "", "", "no Service has the ClusterIP " + ip.String()
}

func hasClusterIP(svc corev1.Service, ip net.IP) bool {
	for _, s := range append([]string{svc.Spec.ClusterIP}, svc.Spec.ClusterIPs...) {
		if net.ParseIP(s).Equal(ip) {
			return true
		}
	}
	return false
}

// dialLoopback dials target, checking the address actually connected to, so that nothing
// between the decision and the dial can send the connection elsewhere.
func dialLoopback(target string) (net.Conn, error) {
	d := net.Dialer{
		Timeout: 5 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || !loopback.Contains(ip) {
				return errors.New("refusing to dial " + address + ": outside 127.0.0.0/8")
			}
			return nil
		},
	}
	return d.Dial("tcp4", target)
}
