package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
)

const (
	serviceRange         = "10.96.0.0/12"
	serviceIP            = "10.96.0.1"
	frontProxyClientName = "front-proxy-client"
	// What kube-controller-manager runs here. Left out on purpose: the pod GC controller (it deletes
	// Pods bound to nodes that have no Node object, which is every test Pod), node lifecycle (no
	// kubelets heartbeat), and the workload controllers (a chart's Deployment must not start Pods
	// that no kubelet can run).
	controllers = "garbage-collector-controller,namespace-controller,serviceaccount-controller," +
		"serviceaccount-token-controller,clusterrole-aggregation-controller," +
		"root-ca-certificate-publisher-controller,validatingadmissionpolicy-status-controller"
)

// auditPolicyYAML records one line per request (who, what, answer code; no bodies) from every
// identity under test, so tests can count refused requests (403) per service account or user.
// The control plane's own components and the cluster-admin (system:masters) are left out.
const auditPolicyYAML = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: [system:kube-controller-manager, system:apiserver]
  - level: None
    userGroups: ["system:masters", "system:serviceaccounts:kube-system"]
  - level: Metadata
`

// serve runs etcd, kube-apiserver and kube-controller-manager until SIGTERM or SIGINT.
func serve(dirArg string) error {
	dir, err := filepath.Abs(dirArg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The components log to stderr through klog; keep stdout for the one line callers wait for.
	logPath := filepath.Join(dir, "control-plane.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if err := syscall.Dup3(int(logFile.Fd()), 2, 0); err != nil {
		return err
	}
	failed := func(what string, cause error) error {
		return fmt.Errorf("%s: %w (log: %s)\n%s", what, cause, logPath, tail(logPath, 40))
	}

	keys := pki{dir: filepath.Join(dir, "pki")}
	if err := keys.ensure(); err != nil {
		return fmt.Errorf("certificates in %s: %w", keys.dir, err)
	}
	auditPolicy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(auditPolicy, []byte(auditPolicyYAML), 0o644); err != nil {
		return err
	}
	egress, err := newEgressProxy(filepath.Join(dir, "egress.log"), serviceRange)
	if err != nil {
		return err
	}
	egressSocket := filepath.Join(dir, "egress.sock")
	if len(egressSocket) > 100 { // a Unix socket's path holds at most 107 bytes
		egressSocket = filepath.Join(os.TempDir(), fmt.Sprintf("test-cluster-egress-%d.sock", os.Getpid()))
	}
	_ = os.Remove(egressSocket)
	egressListener, err := net.Listen("unix", egressSocket)
	if err != nil {
		return err
	}
	defer egressListener.Close()
	defer os.Remove(egressSocket)
	go egress.serve(egressListener)
	egressConfig := filepath.Join(dir, "egress-selector.yaml")
	if err := os.WriteFile(egressConfig, []byte(fmt.Sprintf(egressConfigYAML, egressSocket)), 0o644); err != nil {
		return err
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcd, err := startEtcd(filepath.Join(dir, "etcd"), ports[0], ports[1])
	if err != nil {
		return failed("etcd did not start", err)
	}
	stopEtcd := sync.OnceFunc(etcd.Close)
	defer stopEtcd()

	// Subscribe before the apiserver does, so no signal is missed; the apiserver's own handler
	// (installed by NewAPIServerCommand) starts its graceful shutdown on the same signal.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	apiserverDone := make(chan error, 1)
	cmd := apiserver.NewAPIServerCommand()
	flags := apiserverFlags(keys, etcd.Clients[0].Addr().String(), ports[2])
	flags = append(flags, "--audit-policy-file="+auditPolicy, "--audit-log-path="+filepath.Join(dir, "audit.log"),
		"--audit-log-mode=blocking", "--audit-log-maxsize=0", "--egress-selector-config-file="+egressConfig)
	cmd.SetArgs(flags)
	cmd.SetOut(os.Stderr)
	go func() { apiserverDone <- cmd.Execute() }()

	host := "https://127.0.0.1:" + strconv.Itoa(ports[2])
	admin := &rest.Config{
		Host: host,
		TLSClientConfig: rest.TLSClientConfig{
			CAFile: keys.path("ca.crt"), CertFile: keys.path("admin.crt"), KeyFile: keys.path("admin.key"),
		},
	}
	client, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	egress.setClient(client)
	if err := awaitReady(client, apiserverDone, 3*time.Minute); err != nil {
		return failed("kube-apiserver did not become ready", err)
	}
	cmConfig := filepath.Join(dir, "controller-manager.kubeconfig")
	if err := writeKubeconfig(cmConfig, host, keys, "controller-manager"); err != nil {
		return err
	}
	cm, cmDone, err := startControllerManager(dir, cmConfig, keys)
	if err != nil {
		return failed("kube-controller-manager did not start", err)
	}
	defer stopChild(cm, cmDone)
	stopWatching := make(chan struct{})
	defer close(stopWatching)
	go watchSockets(egress, func() []int { return []int{os.Getpid(), cm.Process.Pid} }, stopWatching)
	// Pods are refused until their namespace has its default ServiceAccount: wait for the first.
	if err := awaitDefaultServiceAccount(client, cmDone, 2*time.Minute); err != nil {
		return failed("kube-controller-manager is not working", err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, host, keys, "admin"); err != nil {
		return err
	}
	fmt.Printf("export KUBECONFIG=%s\n", kubeconfig)

	select {
	case s := <-signals:
		fmt.Printf("test-cluster: %s, stopping\n", s)
	case err := <-apiserverDone:
		return failed("kube-apiserver stopped on its own", orExit(err))
	case err := <-cmDone:
		return failed("kube-controller-manager stopped on its own", orExit(err))
	}
	stopChild(cm, cmDone)
	select {
	case err := <-apiserverDone:
		if err != nil {
			return failed("kube-apiserver shut down with an error", err)
		}
	case <-time.After(90 * time.Second):
		return failed("kube-apiserver did not shut down", errors.New("timeout after 90 s"))
	}
	stopEtcd()
	fmt.Println("test-cluster: stopped")
	return nil
}

func apiserverFlags(keys pki, etcdAddr string, port int) []string {
	return []string{
		"--etcd-servers=http://" + etcdAddr,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + keys.path("apiserver.crt"),
		"--tls-private-key-file=" + keys.path("apiserver.key"),
		"--client-ca-file=" + keys.path("ca.crt"),
		"--authorization-mode=Node,RBAC",
		// The defaults (ValidatingAdmissionPolicy, ServiceAccount, PodSecurity, ...) plus the two a
		// production cluster commonly adds: NodeRestriction (kubeadm) and
		// OwnerReferencesPermissionEnforcement (checks blockOwnerDeletion against the owner's
		// finalizers permission).
		"--enable-admission-plugins=NodeRestriction,OwnerReferencesPermissionEnforcement",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + keys.path("sa.pub"),
		"--service-account-signing-key-file=" + keys.path("sa.key"),
		"--service-cluster-ip-range=" + serviceRange,
		// Endpoints refuse loopback addresses: nothing would be written for the kubernetes Service.
		"--endpoint-reconciler-type=none",
		"--allow-privileged=true",
		// The aggregation layer: front-proxy client certificate and the CA extension servers trust.
		"--requestheader-client-ca-file=" + keys.path("front-proxy-ca.crt"),
		"--requestheader-allowed-names=" + frontProxyClientName,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + keys.path("front-proxy-client.crt"),
		"--proxy-client-key-file=" + keys.path("front-proxy-client.key"),
		// No --enable-aggregator-routing: it dials EndpointSlice addresses, which may not be loopback,
		// and everything here listens on loopback. Whatever a Service resolves to, the egress
		// selector (egress.go) dials loopback only.
		"--profiling=false",
	}
}

func startEtcd(dataDir string, clientPort, peerPort int) (*embed.Etcd, error) {
	cfg := embed.NewConfig()
	cfg.Name = "test-cluster"
	cfg.Dir = dataDir
	clientURL := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(clientPort)}
	peerURL := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(peerPort)}
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "warn"
	// Only requests slower than this are logged (left at zero, every request would be).
	cfg.WarningUnaryRequestDuration = 500 * time.Millisecond
	cfg.LogOutputs = []string{"stderr"}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, err
	case <-time.After(time.Minute):
		e.Close()
		return nil, errors.New("etcd not ready within 1 min")
	}
}

func startControllerManager(dir, kubeconfig string, keys pki) (*exec.Cmd, chan error, error) {
	log, err := os.OpenFile(filepath.Join(dir, "controller-manager.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	// A separate process: kube-apiserver and kube-controller-manager each own global registries
	// (metrics, feature gates, flags) that are not meant to be shared in one process.
	cmd := exec.Command(self, "controller-manager",
		"--kubeconfig="+kubeconfig,
		"--controllers="+controllers,
		"--leader-elect=false",
		"--secure-port=0",
		"--root-ca-file="+keys.path("ca.crt"),
		"--service-account-private-key-file="+keys.path("sa.key"),
		"--use-service-account-credentials=true",
		"--cluster-name=octomy-test",
	)
	cmd.Stdout = log
	cmd.Stderr = log
	// Dies with this process even on kill -9.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); log.Close() }()
	return cmd, done, nil
}

// stopChild sends SIGTERM and waits up to 20 s before SIGKILL; safe to call twice.
func stopChild(cmd *exec.Cmd, done chan error) {
	if cmd.ProcessState != nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		done <- err
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
	}
}

func awaitReady(client *kubernetes.Clientset, apiserverDone chan error, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	for {
		body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && strings.TrimSpace(string(body)) == "ok" {
			return nil
		}
		last = err
		select {
		case err := <-apiserverDone:
			return orExit(err)
		case <-ctx.Done():
			return fmt.Errorf("last answer: %v", last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func awaitDefaultServiceAccount(client *kubernetes.Clientset, cmDone chan error, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		_, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if !apierrors.IsNotFound(err) && ctx.Err() != nil {
			return err
		}
		select {
		case err := <-cmDone:
			cmDone <- err
			return orExit(err)
		case <-ctx.Done():
			return errors.New("no ServiceAccount default/default within " + timeout.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func orExit(err error) error {
	if err == nil {
		return errors.New("exited without an error")
	}
	return err
}

func writeKubeconfig(path, host string, keys pki, user string) error {
	ca, err := os.ReadFile(keys.path("ca.crt"))
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(keys.path(user + ".crt"))
	if err != nil {
		return err
	}
	key, err := os.ReadFile(keys.path(user + ".key"))
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test-cluster"] = &clientcmdapi.Cluster{Server: host, CertificateAuthorityData: ca}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts["test-cluster"] = &clientcmdapi.Context{Cluster: "test-cluster", AuthInfo: user, Namespace: "default"}
	cfg.CurrentContext = "test-cluster"
	tmp := path + ".tmp"
	if err := clientcmd.WriteToFile(*cfg, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// freePorts asks the kernel for n distinct free ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
