// check: every generated Application is judged by the real Application CRD and its source path
// must exist in the repository at its revision. The CRD is argo-cd v3.2.12's own
// (manifests/crds/application-crd.yaml of the module download, installed into the cluster by the
// harness); each Application goes to the API server as a server-side apply with dryRun=All, so the
// server's structural schema validation, pruning and defaulting judge it without storing anything.
// The verdict carries what the server stored (after pruning) so that a field the CRD does not know
// shows as dropped instead of passing silently.
package main

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

type checkVerdict struct {
	Application string `json:"application"`
	Accepted    bool   `json:"accepted"`
	Error       string `json:"error,omitempty"`
	// Dropped: the server did not keep the object as sent (a field the CRD prunes, or a changed value)
	Dropped    bool   `json:"dropped"`
	Path       string `json:"path"`
	PathExists bool   `json:"pathExists"`
	Revision   string `json:"revision,omitempty"`
}

var appGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

func runCheck(ctx context.Context, cfg *rest.Config, apps []v1alpha1.Application, repos *localRepos) ([]checkVerdict, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	out := []checkVerdict{}
	for i := range apps {
		app := apps[i]
		app.TypeMeta = metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Application"}
		v := checkVerdict{Application: app.Name}
		sent, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&app)
		if err != nil {
			return nil, err
		}
		un := &unstructured.Unstructured{Object: sent}
		unstructured.RemoveNestedField(un.Object, "metadata", "creationTimestamp")
		unstructured.RemoveNestedField(un.Object, "status")
		body, err := json.Marshal(un.Object)
		if err != nil {
			return nil, err
		}
		force := true
		stored, err := dyn.Resource(appGVR).Namespace(app.Namespace).Patch(ctx, app.Name, types.ApplyPatchType, body,
			metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kyma-fleet-argocd-check", Force: &force})
		if err != nil {
			v.Error = err.Error()
		} else {
			v.Accepted = true
			a, _ := json.Marshal(un.Object["spec"])
			b, _ := json.Marshal(stored.Object["spec"])
			v.Dropped = string(a) != string(b)
			if v.Dropped {
				v.Error = fmt.Sprintf("stored spec differs from the one sent:\nsent   %s\nstored %s", a, b)
			}
		}
		src := app.Spec.GetSource()
		v.Path = src.Path
		exists, sha, err := repos.PathExists(src.RepoURL, src.TargetRevision, src.Path)
		if err != nil {
			v.Error += fmt.Sprintf("; repository: %v", err)
		}
		v.PathExists, v.Revision = exists, sha
		out = append(out, v)
	}
	return out, nil
}
