// Reads a Flux Kustomization YAML file and refuses every spec field this emulation does not implement,
// so a render that starts using one (patches, postBuild, targetNamespace, ...) fails the tests loudly
// instead of being applied differently from how Flux would apply it.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"sigs.k8s.io/yaml"
)

// implementedSpecFields are the spec fields reconcileOnce honours; notApplicableSpecFields are read but
// have no effect here, for the reason given.
var implementedSpecFields = map[string]string{
	"path":           "built with Flux's SecureBuild",
	"prune":          "stale inventory entries are deleted with Flux's DeleteOptions",
	"dependsOn":      "each dependency must be Ready=True at its generation with this revision",
	"healthChecks":   "ssa WaitForSet (kstatus)",
	"wait":           "ssa WaitForSet over every applied object",
	"timeout":        "health check timeout",
	"deletionPolicy": "only what never deletes on Kustomization deletion: Orphan, or MirrorPrune with prune: false",
}

var notApplicableSpecFields = map[string]string{
	"interval":      "scheduling: one reconcile per run",
	"retryInterval": "scheduling: one reconcile per run",
	"sourceRef":     "the source is --source-root",
	"kubeConfig":    "every target is the cluster of --kubeconfig",
}

// kustomizationFile is a Kustomization file: the typed object, and the document as written (which is what
// gets applied to the cluster, as the bootstrap Kustomization applying dist/gitops/flux/ would apply it).
type kustomizationFile struct {
	typed *kustomizev1.Kustomization
	raw   map[string]any
}

// loadKustomization parses the file strictly into the Flux API type and checks its spec fields.
func loadKustomization(file string) (*kustomizationFile, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if raw["apiVersion"] != kustomizev1.GroupVersion.String() || raw["kind"] != kustomizev1.KustomizationKind {
		return nil, fmt.Errorf("%s: not a %s %s (apiVersion %v, kind %v)", file,
			kustomizev1.GroupVersion.String(), kustomizev1.KustomizationKind, raw["apiVersion"], raw["kind"])
	}
	spec, _ := raw["spec"].(map[string]any)
	var unsupported []string
	for field := range spec {
		_, implemented := implementedSpecFields[field]
		_, notApplicable := notApplicableSpecFields[field]
		if !implemented && !notApplicable {
			unsupported = append(unsupported, "spec."+field)
		}
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		return nil, fmt.Errorf("%s: %s not implemented by flux-apply (it would be applied differently from Flux)",
			file, strings.Join(unsupported, ", "))
	}

	k := &kustomizev1.Kustomization{}
	if err := yaml.UnmarshalStrict(data, k); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if k.Namespace == "" || k.Name == "" {
		return nil, fmt.Errorf("%s: metadata.name and metadata.namespace are required", file)
	}
	// The emulation adds no finalizer, so deleting the object deletes nothing it applied. That is Flux's
	// behaviour for Orphan, and for the default MirrorPrune only while prune is off.
	switch p := k.GetDeletionPolicy(); {
	case p == kustomizev1.DeletionPolicyOrphan:
	case p == kustomizev1.DeletionPolicyMirrorPrune && !k.Spec.Prune:
	default:
		return nil, fmt.Errorf("%s: spec.deletionPolicy %s (with prune: %t) not implemented by flux-apply "+
			"(deleting the Kustomization would delete its objects in Flux)", file, p, k.Spec.Prune)
	}
	for _, dep := range k.Spec.DependsOn {
		if dep.ReadyExpr != "" {
			return nil, fmt.Errorf("%s: spec.dependsOn[].readyExpr not implemented by flux-apply", file)
		}
	}
	return &kustomizationFile{typed: k, raw: raw}, nil
}
