// The "falco/validate" op: the one upstream module that could not be built, so its op answers with
// an error naming the exact refusal, never with a guess.
package main

import "errors"

// falcoUnavailable is the Go module proxy's answer for every version of the Falco extension module
// asked for when the oracle was pinned (see docs/testing.md, "The upstream oracle").
const falcoUnavailable = "unavailable: github.com/gardener/gardener-extension-shoot-falco-service is not served by the Go module proxy " +
	"(`go list -m github.com/gardener/gardener-extension-shoot-falco-service@v0.94.6`: 403 Forbidden, \"server response: This module version is not available.\"; " +
	"likewise every tag from v0.20.0 to v0.95.0 tried and the pseudo-version of b728b8e9c166), so Falco entries are not judged by upstream code"

func handleFalcoValidate(_ []byte) (map[string]any, error) {
	return nil, errors.New(falcoUnavailable)
}
