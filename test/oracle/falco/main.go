// Command oracle-falco lets the Falco extension (gardener-extension-shoot-falco-service) judge
// kyma-fleet's Shoot fragments: strict decoding of the shoot-falco-service providerConfig with the
// extension's own scheme, its Shoot mutator (the defaults the admission adds) and its Shoot
// validator, as the extension's admission webhooks run them. It speaks JSON lines (package
// jsonlines; protocol in test/oracle/protocol.ts). Ops:
//
//	versions        the upstream module versions compiled in
//	falco/validate  Shoot admission of the shoot-falco-service entry (mutator, then validator)
//
// Its own module because the Falco extension is not served by the Go module proxy: go.mod points a
// replace line at ../shared/upstream/gardener-extension-shoot-falco-service (a source snapshot kept
// beside the repository, see its SOURCE.md). Where that folder is absent the program cannot be
// built, and only the Falco judge is skipped (test/oracle/tools.ts says why in one line).
package main

import (
	"fmt"
	"os"

	"kyma-fleet.dev/oracle/jsonlines"
)

// snapshotHash is stamped at build time (-ldflags -X) with the hash of the snapshot's sources, which
// are outside this module's folder and so must reach the tool cache key another way.
var snapshotHash = "unstamped"

// versions adds the snapshot's source hash: the replaced module has no version of its own.
func versions(raw []byte) (map[string]any, error) {
	out, err := jsonlines.Versions(raw)
	if err == nil {
		out["versions"].(map[string]string)["github.com/gardener/gardener-extension-shoot-falco-service"] = "snapshot " + snapshotHash
	}
	return out, err
}

func main() {
	handlers := map[string]jsonlines.Handler{
		"versions":       versions,
		"falco/validate": handleFalcoValidate,
	}
	if err := jsonlines.Serve(os.Stdin, os.Stdout, handlers); err != nil {
		fmt.Fprintln(os.Stderr, "oracle-falco:", err)
		os.Exit(1)
	}
}
