// Command oracle-lakom lets the Lakom extension (gardener-extension-shoot-lakom-service) judge
// kyma-fleet's Shoot fragments: strict decoding of the shoot-lakom-service providerConfig with the
// extension's own scheme and its Shoot validator (pkg/admission/validator/lakom), as its admission
// webhook runs them. It speaks JSON lines (package jsonlines; protocol in test/oracle/protocol.ts).
// Ops:
//
//	versions        the upstream module versions compiled in
//	lakom/validate  Shoot admission of the shoot-lakom-service entry
//
// Its own module: Lakom v0.23.0, the newest version the Go module proxy serves, needs Gardener
// v1.132.1 (it imports pkg/apis/core/helper, which later Gardener versions no longer have), so it
// cannot share a module with the other admission programs.
package main

import (
	"fmt"
	"os"

	"kyma-fleet.dev/oracle/jsonlines"
)

func main() {
	handlers := map[string]jsonlines.Handler{
		"versions":       jsonlines.Versions,
		"lakom/validate": handleLakomValidate,
	}
	if err := jsonlines.Serve(os.Stdin, os.Stdout, handlers); err != nil {
		fmt.Fprintln(os.Stderr, "oracle-lakom:", err)
		os.Exit(1)
	}
}
