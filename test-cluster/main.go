// Command test-cluster is the real control plane the real-cluster tests run against: etcd
// (embedded), kube-apiserver and kube-controller-manager, all built from the pinned Kubernetes
// modules in go.mod. It also carries the small tools the Java tests call to judge objects as
// GitOps tools do (kstatus, Argo CD's Lua health checks).
//
//	test-cluster serve DIR                      control plane until SIGTERM (test-cluster/start DIR)
//	test-cluster controller-manager FLAGS...    kube-controller-manager (started by serve as a child)
//	test-cluster kstatus FILE                   kstatus result of every object in a YAML/JSON file
//	test-cluster lua-health SCRIPT FILE         an Argo CD health script run on every object in FILE
package main

import (
	"fmt"
	"os"

	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "serve":
		if len(os.Args) != 3 {
			usage()
		}
		err = serve(os.Args[2])
	case "controller-manager":
		cmd := controllermanager.NewControllerManagerCommand()
		cmd.SetArgs(os.Args[2:])
		err = cmd.Execute()
	case "kstatus":
		if len(os.Args) != 3 {
			usage()
		}
		err = kstatusCommand(os.Args[2], os.Stdout)
	case "lua-health":
		if len(os.Args) != 4 {
			usage()
		}
		err = luaHealthCommand(os.Args[2], os.Args[3], os.Stdout)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stdout, "test-cluster:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  test-cluster serve DIR
  test-cluster controller-manager FLAGS...
  test-cluster kstatus FILE
  test-cluster lua-health SCRIPT FILE`)
	os.Exit(2)
}
