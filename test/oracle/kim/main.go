// Command oracle-kim runs KIM's own Shoot patch code on kyma-fleet's Runtime CR fragments and compares
// the registry-cache entry and spec.resources it writes with kyma-fleet's rendered Shoot fragment. It
// is a module of its own because KIM's pinned code needs an older Gardener API than the registry-cache
// extension's admission (test/oracle/admission). JSON lines (package jsonlines). Ops:
//
//	versions            the upstream module versions compiled in
//	kim/registry-cache  KIM's registry-cache entry and spec.resources for a Runtime CR, optionally
//	                    compared with a rendered Shoot fragment
package main

import (
	"fmt"
	"os"

	"kyma-fleet.dev/oracle/jsonlines"
)

func main() {
	handlers := map[string]jsonlines.Handler{
		"versions":           jsonlines.Versions,
		"kim/registry-cache": handleKIMRegistryCache,
	}
	if err := jsonlines.Serve(os.Stdin, os.Stdout, handlers); err != nil {
		fmt.Fprintln(os.Stderr, "oracle-kim:", err)
		os.Exit(1)
	}
}
