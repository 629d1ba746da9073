// Command oracle-admission lets Gardener's registry-cache extension judge kyma-fleet's Shoot
// fragments: strict providerConfig decoding with the extension's own scheme and its Shoot admission
// validator. It speaks JSON lines (package jsonlines; protocol in test/oracle/protocol.ts). Ops:
//
//	versions                        the upstream module versions compiled in
//	registry-cache/validate         Shoot admission of the registry-cache entry
//	registry-cache/validate-config  bare ValidateRegistryConfig field errors of one providerConfig
//	shoot/validate-resources        strict Shoot decoding and Gardener's ValidateResources on spec.resources
//
// Falco and Lakom have programs of their own (../falco, ../lakom). This module pins the same
// dependency versions as ../falco (Gardener v1.149.0, k8s.io v0.36.3, ...), so that the two share
// their compiled packages in the Go build cache.
package main

import (
	"fmt"
	"os"

	"kyma-fleet.dev/oracle/jsonlines"
)

func main() {
	handlers := map[string]jsonlines.Handler{
		"versions":                       jsonlines.Versions,
		"registry-cache/validate":        handleRegistryCacheValidate,
		"registry-cache/validate-config": handleRegistryCacheValidateConfig,
		"shoot/validate-resources":       handleShootValidateResources,
	}
	if err := jsonlines.Serve(os.Stdin, os.Stdout, handlers); err != nil {
		fmt.Fprintln(os.Stderr, "oracle-admission:", err)
		os.Exit(1)
	}
}
