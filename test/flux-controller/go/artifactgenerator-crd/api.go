//go:build tools

// The ArtifactGenerator CRD of Flux's source-watcher is generated here from its published API types
// (the source-watcher module itself is not served by the Go module proxy, its api/v2 module is):
// controller-gen, the generator upstream uses, reads this package. This file only keeps the API module
// in go.mod and go.sum; it is never built.
package tools

import _ "github.com/fluxcd/source-watcher/api/v2/v1beta1"
