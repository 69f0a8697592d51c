package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/util/keyutil"
)

// pki is the set of keys and certificates of one control plane, kept in DIR/pki so that a
// restart on the same directory keeps its tokens and kubeconfigs valid.
type pki struct {
	dir string
}

// keyPair is a certificate and its RSA key, both as files.
type keyPair struct {
	cert *x509.Certificate
	key  *rsa.PrivateKey
}

func (p pki) path(name string) string { return filepath.Join(p.dir, name) }

// ensure creates whatever is missing: the cluster CA and the certificates it signs (serving,
// admin, controller-manager), the service-account signing key, and the front-proxy CA with the
// client certificate the aggregation layer presents to extension API servers.
func (p pki) ensure() error {
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return err
	}
	ca, err := p.authority("ca", "octomy-test-cluster-ca")
	if err != nil {
		return err
	}
	serving := x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(serviceIP)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if err := p.leaf("apiserver", ca, serving); err != nil {
		return err
	}
	// system:masters: the admin of this test cluster is cluster-admin whatever RBAC says.
	if err := p.leaf("admin", ca, client("octomy-test-admin", "system:masters")); err != nil {
		return err
	}
	if err := p.leaf("controller-manager", ca, client("system:kube-controller-manager")); err != nil {
		return err
	}
	front, err := p.authority("front-proxy-ca", "octomy-test-front-proxy-ca")
	if err != nil {
		return err
	}
	if err := p.leaf("front-proxy-client", front, client(frontProxyClientName)); err != nil {
		return err
	}
	return p.serviceAccountKey()
}

func client(name string, groups ...string) x509.Certificate {
	return x509.Certificate{
		Subject:     pkix.Name{CommonName: name, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
}

// authority loads NAME.crt/NAME.key, or creates a self-signed CA there.
func (p pki) authority(name, commonName string) (keyPair, error) {
	if kp, err := p.load(name); err == nil {
		return kp, nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return keyPair{}, err
	}
	tmpl := x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName},
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	cert, err := sign(&tmpl, &tmpl, &key.PublicKey, key)
	if err != nil {
		return keyPair{}, err
	}
	kp := keyPair{cert, key}
	return kp, p.store(name, kp)
}

// leaf creates NAME.crt/NAME.key signed by ca unless both exist.
func (p pki) leaf(name string, ca keyPair, tmpl x509.Certificate) error {
	if _, err := p.load(name); err == nil {
		return nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	cert, err := sign(&tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return err
	}
	return p.store(name, keyPair{cert, key})
}

func sign(tmpl, parent *x509.Certificate, pub *rsa.PublicKey, signer *rsa.PrivateKey) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(10 * 365 * 24 * time.Hour)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

func (p pki) load(name string) (keyPair, error) {
	certPEM, err := os.ReadFile(p.path(name + ".crt"))
	if err != nil {
		return keyPair{}, err
	}
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return keyPair{}, fmt.Errorf("%s.crt holds no PEM block", name)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return keyPair{}, err
	}
	key, err := keyutil.PrivateKeyFromFile(p.path(name + ".key"))
	if err != nil {
		return keyPair{}, err
	}
	rsaKey, ok := key.(*rsa.PrivateKey)
	if !ok {
		return keyPair{}, fmt.Errorf("%s.key is not an RSA key", name)
	}
	return keyPair{cert, rsaKey}, nil
}

func (p pki) store(name string, kp keyPair) error {
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: kp.cert.Raw})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(kp.key)})
	if err := os.WriteFile(p.path(name+".key"), keyPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(p.path(name+".crt"), certPEM, 0o644)
}

// serviceAccountKey creates sa.key (signs service-account tokens) and sa.pub (verifies them).
func (p pki) serviceAccountKey() error {
	if _, err := os.Stat(p.path("sa.pub")); err == nil {
		return nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(p.path("sa.key"), keyPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(p.path("sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
}
