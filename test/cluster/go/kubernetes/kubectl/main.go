// kubectl of the pinned Kubernetes release, for the kyma-fleet test cluster: the same entry point as
// cmd/kubectl in k8s.io/kubernetes, so the tests never depend on whichever kubectl a machine has.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
