// kube-apiserver of the pinned Kubernetes release, for the kyma-fleet test cluster: the same entry point
// as cmd/kube-apiserver in k8s.io/kubernetes (the real command, its flags and its admission chain).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
