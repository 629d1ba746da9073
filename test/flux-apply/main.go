// Command flux-apply reconciles ONE Flux Kustomization object (a YAML file of dist/gitops/flux/)
// against a Kubernetes API server, the way kustomize-controller does, and prints the outcome as one
// JSON line. The kyma-fleet tests use it to apply the render to the test cluster as Flux would.
//
// What is Flux's own code (imported, run as is):
//   - github.com/fluxcd/pkg/kustomize: the kustomization.yaml generator (NewGenerator.WriteFile) and
//     SecureBuild, the same build kustomize-controller runs (krusty, on-disk FS restricted to the root);
//   - github.com/fluxcd/pkg/ssa: ReadObjects, normalize.UnstructuredList, the ResourceManager with its
//     owner labels (kustomize.toolkit.fluxcd.io/name and /namespace), ApplyAllStaged (server-side
//     dry-run of every object first, then server-side apply with field manager kustomize-controller),
//     DeleteAll (prune) and WaitForSetWithContext (kstatus health checks);
//   - github.com/fluxcd/cli-utils kstatus polling, github.com/fluxcd/pkg/runtime/conditions, and the
//     Kustomization API types of github.com/fluxcd/kustomize-controller/api.
//
// What is a re-enactment (kustomize-controller's internal/ packages cannot be imported), written after
// reading internal/controller/kustomization_controller.go and internal/inventory/inventory.go:
//   - the order of steps of Reconcile/reconcile: Reconciling/Ready=Unknown status, dependsOn check,
//     build, apply (the same ApplyOptions, exclusion and cleanup selectors), inventory from the change
//     set, prune of stale inventory entries (only with spec.prune; DeleteOptions with the owner labels
//     as inclusions and kustomize.toolkit.fluxcd.io/prune: disabled as exclusion), health checks
//     (spec.healthChecks, or every applied object with spec.wait), Ready=True "Applied revision: ..."
//     and the finalizeStatus rules (observedGeneration only when Ready);
//   - the inventory (status.inventory entries {id: <ns>_<name>_<group>_<kind>, v: <version>}) and its diff;
//   - the status write: through the status subresource with field owner gotk-kustomize-controller.
//
// Deliberately not emulated: the source (spec.sourceRef; the files come from --source-root), the remote
// cluster (spec.kubeConfig; every target is the cluster of --kubeconfig), scheduling (interval,
// retryInterval), events, metrics and status.history, and deletion of the Kustomization (no finalizer is
// added, so deleting the object orphans what it applied: the behaviour of deletionPolicy Orphan, the only
// policy accepted). Every other spec field fails the run loudly (exit 2) instead of being ignored.
//
// The build copies only the folder named by spec.path into a temporary root (what the render promises:
// each target folder builds on its own); a kustomization that reaches outside it fails to build.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

// Exit codes: 0 the Kustomization ended Ready=True, 1 it ended Ready=False (both print the result line),
// 2 the emulation could not run (bad flags, unsupported spec field, unreachable server).
const (
	exitReady    = 0
	exitNotReady = 1
	exitError    = 2
)

func main() {
	opts := options{}
	flag.StringVar(&opts.kustomizationFile, "kustomization", "", "the Flux Kustomization YAML file to reconcile (required)")
	flag.StringVar(&opts.sourceRoot, "source-root", "", "the folder that spec.path is relative to, as the source artifact's root (required)")
	flag.StringVar(&opts.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster that holds the Kustomization objects and receives the objects (required)")
	flag.StringVar(&opts.revision, "revision", "local", "the source revision to record (lastAppliedRevision) and to require of dependencies")
	flag.DurationVar(&opts.healthTimeout, "health-timeout", 0, "override of the health check timeout (default: spec.timeout, else spec.interval, as Flux)")
	flag.DurationVar(&opts.pollInterval, "poll-interval", 5*time.Second, "how often health checks poll (kustomize-controller: 5s)")
	flag.IntVar(&opts.concurrency, "concurrency", 4, "concurrent server-side dry-runs (kustomize-controller --concurrent-ssa)")
	flag.Parse()
	if opts.kustomizationFile == "" || opts.sourceRoot == "" || opts.kubeconfig == "" {
		fail(fmt.Errorf("--kustomization, --source-root and --kubeconfig are required"))
	}

	k, err := loadKustomization(opts.kustomizationFile)
	if err != nil {
		fail(err)
	}
	result, err := reconcileOnce(opts, k)
	if err != nil {
		fail(err)
	}
	line, err := json.Marshal(result)
	if err != nil {
		fail(err)
	}
	fmt.Println(string(line))
	if result.Ready {
		os.Exit(exitReady)
	}
	os.Exit(exitNotReady)
}

// fail prints the error as a JSON line on stdout (so callers parse one format) and on stderr, and exits 2.
func fail(err error) {
	line, _ := json.Marshal(map[string]string{"error": err.Error()})
	fmt.Println(string(line))
	fmt.Fprintln(os.Stderr, "flux-apply:", err)
	os.Exit(exitError)
}
