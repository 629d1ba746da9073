// One reconcile of one Kustomization, in the order of kustomize-controller's Reconcile and reconcile
// (internal/controller/kustomization_controller.go); see main.go for which steps are Flux's library and
// which are re-enacted.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/cli-utils/pkg/object"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	generator "github.com/fluxcd/pkg/kustomize"
	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/normalize"
	ssautil "github.com/fluxcd/pkg/ssa/utils"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

const (
	// controllerName is kustomize-controller's field manager for applied objects.
	controllerName = "kustomize-controller"
	// statusManager is the field manager kustomize-controller writes its status with ("gotk-" + name).
	statusManager = "gotk-" + controllerName
)

type options struct {
	kustomizationFile string
	sourceRoot        string
	kubeconfig        string
	revision          string
	healthTimeout     time.Duration
	pollInterval      time.Duration
	concurrency       int
}

// changeEntry is one object of the apply or prune change set.
type changeEntry struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Action  string `json:"action"`
}

// result is the JSON line flux-apply prints.
type result struct {
	Kustomization string        `json:"kustomization"`
	Revision      string        `json:"revision"`
	Ready         bool          `json:"ready"`
	Reason        string        `json:"reason"`
	Message       string        `json:"message"`
	Changeset     []changeEntry `json:"changeset"`
	Pruned        []changeEntry `json:"pruned"`
	Inventory     []string      `json:"inventory"`
}

// clusterClients are the clients of the target cluster (also the cluster holding the Kustomization).
type clusterClients struct {
	client client.Client
	poller *polling.StatusPoller
}

func connect(kubeconfig string) (*clusterClients, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := kustomizev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme, Mapper: mapper, HTTPClient: httpClient})
	if err != nil {
		return nil, err
	}
	return &clusterClients{client: c, poller: polling.NewStatusPoller(c, mapper, polling.Options{})}, nil
}

// reconcileOnce puts the Kustomization object on the cluster (as the bootstrap Kustomization applying
// dist/gitops/flux/ would) and reconciles it once. An error means the emulation itself failed; a failed
// reconcile is a result with Ready false, as Flux records it.
func reconcileOnce(opts options, desired *kustomizationFile) (*result, error) {
	ctx := context.Background()
	cc, err := connect(opts.kubeconfig)
	if err != nil {
		return nil, err
	}
	obj, err := ensureKustomizationObject(ctx, cc.client, desired)
	if err != nil {
		return nil, err
	}

	res := &result{Kustomization: obj.Namespace + "/" + obj.Name, Revision: opts.revision,
		Changeset: []changeEntry{}, Pruned: []changeEntry{}}

	// Reconcile: dependencies first; a dependency that is not ready stops everything before the build.
	// (The stored status holds the previous run's conditions: decide on this run's outcome only.)
	var depErr error
	if len(obj.Spec.DependsOn) > 0 {
		depErr = checkDependencies(ctx, cc.client, obj, opts.revision)
	}
	if depErr != nil {
		conditions.MarkFalse(obj, meta.ReadyCondition, meta.DependencyNotReadyReason, "%s", depErr)
	} else if reconcileErr := reconcileRevision(ctx, cc, obj, opts, res); reconcileErr != nil && !conditions.IsFalse(obj, meta.ReadyCondition) {
		conditions.MarkFalse(obj, meta.ReadyCondition, meta.ReconciliationFailedReason, "%s", reconcileErr)
	}

	// finalizeStatus: observedGeneration only when Ready; Reconciling becomes ProgressingWithRetry on failure.
	if conditions.IsTrue(obj, meta.ReadyCondition) {
		conditions.Delete(obj, meta.ReconcilingCondition)
		obj.Status.ObservedGeneration = obj.Generation
	}
	if conditions.IsFalse(obj, meta.ReadyCondition) && conditions.Has(obj, meta.ReconcilingCondition) {
		rc := conditions.Get(obj, meta.ReconcilingCondition)
		rc.Reason = meta.ProgressingWithRetryReason
		conditions.Set(obj, rc)
	}
	if err := writeStatus(ctx, cc.client, obj); err != nil {
		return nil, err
	}

	ready := conditions.Get(obj, meta.ReadyCondition)
	res.Ready = ready != nil && ready.Status == metav1.ConditionTrue
	if ready != nil {
		res.Reason, res.Message = ready.Reason, ready.Message
	}
	res.Inventory = []string{}
	if obj.Status.Inventory != nil {
		for _, e := range obj.Status.Inventory.Entries {
			res.Inventory = append(res.Inventory, e.ID)
		}
	}
	return res, nil
}

// ensureKustomizationObject server-side applies the Kustomization document as written (apiVersion, kind,
// metadata, spec; a status in the file is ignored) with kustomize-controller's field manager, and returns
// the object as stored (with its generation and the previous run's status).
func ensureKustomizationObject(ctx context.Context, c client.Client, desired *kustomizationFile) (*kustomizev1.Kustomization, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	for key, value := range desired.raw {
		if key != "status" {
			u.Object[key] = value
		}
	}
	name, namespace := desired.typed.Name, desired.typed.Namespace
	if err := c.Patch(ctx, u, client.Apply, client.FieldOwner(controllerName), client.ForceOwnership); err != nil {
		return nil, fmt.Errorf("creating Kustomization %s/%s on the cluster: %w", namespace, name, err)
	}
	obj := &kustomizev1.Kustomization{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// checkDependencies re-enacts kustomize-controller's checkDependencies (without readyExpr, refused at load).
func checkDependencies(ctx context.Context, c client.Client, obj *kustomizev1.Kustomization, revision string) error {
	for _, depRef := range obj.Spec.DependsOn {
		if depRef.Namespace == "" {
			depRef.Namespace = obj.GetNamespace()
		}
		depName := types.NamespacedName{Namespace: depRef.Namespace, Name: depRef.Name}
		var dep kustomizev1.Kustomization
		if err := c.Get(ctx, depName, &dep); err != nil {
			return fmt.Errorf("dependency '%s' not found: %w", depName, err)
		}
		if len(dep.Status.Conditions) == 0 || dep.Generation != dep.Status.ObservedGeneration {
			return fmt.Errorf("dependency '%s' is not ready", depName)
		}
		if !apimeta.IsStatusConditionTrue(dep.Status.Conditions, meta.ReadyCondition) {
			return fmt.Errorf("dependency '%s' is not ready", depName)
		}
		srcNamespace := dep.Spec.SourceRef.Namespace
		if srcNamespace == "" {
			srcNamespace = dep.GetNamespace()
		}
		depSrcNamespace := obj.Spec.SourceRef.Namespace
		if depSrcNamespace == "" {
			depSrcNamespace = obj.GetNamespace()
		}
		if dep.Spec.SourceRef.Name == obj.Spec.SourceRef.Name && srcNamespace == depSrcNamespace &&
			dep.Spec.SourceRef.Kind == obj.Spec.SourceRef.Kind && dep.Status.LastAppliedRevision != revision {
			return fmt.Errorf("dependency '%s' revision is not up to date", depName)
		}
	}
	return nil
}

// reconcileRevision re-enacts reconcile(): build, apply, inventory, prune, health checks, Ready.
func reconcileRevision(ctx context.Context, cc *clusterClients, obj *kustomizev1.Kustomization, opts options, res *result) error {
	conditions.MarkUnknown(obj, meta.ReadyCondition, meta.ProgressingReason, "%s", "Reconciliation in progress")
	conditions.MarkReconciling(obj, meta.ProgressingReason, "Building manifests for revision %s", opts.revision)
	obj.Status.LastAttemptedRevision = opts.revision
	if err := writeStatus(ctx, cc.client, obj); err != nil {
		return fmt.Errorf("failed to update status: %w", err)
	}

	oldInventory := &kustomizev1.ResourceInventory{Entries: []kustomizev1.ResourceRef{}}
	if obj.Status.Inventory != nil {
		obj.Status.Inventory.DeepCopyInto(oldInventory)
	}

	objects, err := build(obj, opts.sourceRoot)
	if err != nil {
		conditions.MarkFalse(obj, meta.ReadyCondition, meta.BuildFailedReason, "%s", err)
		return err
	}

	manager := ssa.NewResourceManager(cc.client, cc.poller, ssa.Owner{Field: controllerName, Group: kustomizev1.GroupVersion.Group})
	manager.SetOwnerLabels(objects, obj.GetName(), obj.GetNamespace())
	manager.SetConcurrency(opts.concurrency)

	changeSet, err := apply(ctx, manager, obj, objects)
	if changeSet != nil {
		res.Changeset = changeEntries(changeSet)
	}
	if err != nil {
		conditions.MarkFalse(obj, meta.ReadyCondition, meta.ReconciliationFailedReason, "%s", err)
		return err
	}

	newInventory := inventoryFromChangeSet(changeSet)
	obj.Status.Inventory = newInventory
	stale, err := inventoryDiff(oldInventory, newInventory)
	if err != nil {
		conditions.MarkFalse(obj, meta.ReadyCondition, meta.ReconciliationFailedReason, "%s", err)
		return err
	}

	if obj.Spec.Prune && len(stale) > 0 {
		pruneSet, err := manager.DeleteAll(ctx, stale, ssa.DeleteOptions{
			PropagationPolicy: metav1.DeletePropagationBackground,
			Inclusions:        manager.GetOwnerLabels(obj.Name, obj.Namespace),
			Exclusions: map[string]string{
				fmt.Sprintf("%s/prune", kustomizev1.GroupVersion.Group):     kustomizev1.DisabledValue,
				fmt.Sprintf("%s/reconcile", kustomizev1.GroupVersion.Group): kustomizev1.DisabledValue,
				fmt.Sprintf("%s/ssa", kustomizev1.GroupVersion.Group):       kustomizev1.IgnoreValue,
			},
		})
		if pruneSet != nil {
			res.Pruned = changeEntries(pruneSet)
		}
		if err != nil {
			inventoryMerge(obj.Status.Inventory, pruneSurvivors(stale, pruneSet))
			conditions.MarkFalse(obj, meta.ReadyCondition, meta.PruneFailedReason, "%s", err)
			return err
		}
	}

	if err := checkHealth(ctx, manager, obj, opts, changeSet); err != nil {
		conditions.MarkFalse(obj, meta.ReadyCondition, meta.HealthCheckFailedReason, "%s", err)
		return err
	}

	obj.Status.LastAppliedRevision = opts.revision
	conditions.MarkTrue(obj, meta.ReadyCondition, meta.ReconciliationSucceededReason, "Applied revision: %s", opts.revision)
	return nil
}

// build copies the folder of spec.path into a temporary root and builds it with Flux's generator and
// SecureBuild, as kustomize-controller builds the extracted artifact.
func build(obj *kustomizev1.Kustomization, sourceRoot string) ([]*unstructured.Unstructured, error) {
	rel := filepath.Clean(filepath.FromSlash(obj.Spec.Path))
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("spec.path %q leaves the source root", obj.Spec.Path)
	}
	src := filepath.Join(sourceRoot, rel)
	if _, err := os.Stat(src); err != nil {
		return nil, fmt.Errorf("kustomization path not found: %w", err)
	}
	tmpDir, err := os.MkdirTemp("", "flux-apply-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmpDir)
	if tmpDir, err = filepath.EvalSymlinks(tmpDir); err != nil {
		return nil, err
	}
	dirPath := filepath.Join(tmpDir, rel)
	if err := copyTree(src, dirPath); err != nil {
		return nil, err
	}

	k, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	if _, err := generator.NewGenerator(tmpDir, unstructured.Unstructured{Object: k}).WriteFile(dirPath); err != nil {
		return nil, err
	}
	m, err := generator.SecureBuild(tmpDir, dirPath, false)
	if err != nil {
		return nil, fmt.Errorf("kustomize build failed: %w", err)
	}
	for _, r := range m.Resources() {
		if r.GetName() == "" || r.GetKind() == "" || r.GetApiVersion() == "" {
			return nil, fmt.Errorf("failed to decode Kubernetes apiVersion, kind and name from: %v", r.String())
		}
	}
	resources, err := m.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize build failed: %w", err)
	}
	return ssautil.ReadObjects(bytes.NewReader(resources))
}

// copyTree copies regular files and folders (no symlinks: an artifact holds none that leave it).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, 0o644)
		default:
			return fmt.Errorf("%s: not a regular file or folder", path)
		}
	})
}

// apply re-enacts kustomize-controller's apply(): the same normalisation, ApplyOptions and cleanup.
func apply(ctx context.Context, manager *ssa.ResourceManager, obj *kustomizev1.Kustomization,
	objects []*unstructured.Unstructured) (*ssa.ChangeSet, error) {
	if err := normalize.UnstructuredList(objects); err != nil {
		return nil, err
	}
	group := kustomizev1.GroupVersion.Group
	applyOpts := ssa.DefaultApplyOptions()
	applyOpts.Force = obj.Spec.Force
	applyOpts.ExclusionSelector = map[string]string{
		group + "/reconcile": kustomizev1.DisabledValue,
		group + "/ssa":       kustomizev1.IgnoreValue,
	}
	applyOpts.IfNotPresentSelector = map[string]string{group + "/ssa": kustomizev1.IfNotPresentValue}
	applyOpts.ForceSelector = map[string]string{group + "/force": kustomizev1.EnabledValue}
	applyOpts.Cleanup = ssa.ApplyCleanupOptions{
		Annotations: []string{corev1.LastAppliedConfigAnnotation, group + "/checksum", "fluxcd.io/sync-checksum"},
		Labels:      []string{"fluxcd.io/sync-gc-mark"},
		FieldManagers: []ssa.FieldManager{
			{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationApply},
			{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationUpdate},
			{Name: "before-first-apply", OperationType: metav1.ManagedFieldsOperationUpdate},
			{Name: controllerName, OperationType: metav1.ManagedFieldsOperationUpdate},
		},
		Exclusions: map[string]string{group + "/ssa": kustomizev1.MergeValue},
	}

	resultSet := ssa.NewChangeSet()
	if len(objects) == 0 {
		return resultSet, nil
	}
	changeSet, err := manager.ApplyAllStaged(ctx, objects, applyOpts)
	var changeLog strings.Builder
	if changeSet != nil {
		resultSet.Append(changeSet.Entries)
		for _, change := range changeSet.Entries {
			if change.Action != ssa.UnchangedAction && change.Action != ssa.SkippedAction {
				changeLog.WriteString(change.String() + "\n")
			}
		}
	}
	if err != nil {
		return resultSet, fmt.Errorf("%w\n%s", err, changeLog.String())
	}
	return resultSet, nil
}

// checkHealth re-enacts kustomize-controller's checkHealth with ssa's WaitForSetWithContext.
func checkHealth(ctx context.Context, manager *ssa.ResourceManager, obj *kustomizev1.Kustomization,
	opts options, changeSet *ssa.ChangeSet) error {
	if len(obj.Spec.HealthChecks) == 0 && !obj.Spec.Wait {
		conditions.Delete(obj, meta.HealthyCondition)
		return nil
	}
	var objects object.ObjMetadataSet
	if obj.Spec.Wait {
		for _, entry := range changeSet.Entries {
			if entry.Action != ssa.SkippedAction {
				objects = append(objects, entry.ObjMetadata)
			}
		}
	} else {
		var err error
		if objects, err = referencesToObjMetadataSet(obj.Spec.HealthChecks); err != nil {
			return err
		}
	}
	var toCheck []object.ObjMetadata
	for _, o := range objects {
		if o.GroupKind.Kind == kustomizev1.KustomizationKind && o.Name == obj.GetName() && o.Namespace == obj.GetNamespace() {
			continue
		}
		toCheck = append(toCheck, o)
	}
	if len(toCheck) == 0 {
		conditions.Delete(obj, meta.HealthyCondition)
		return nil
	}
	timeout := obj.GetTimeout()
	if opts.healthTimeout > 0 {
		timeout = opts.healthTimeout
	}
	conditions.MarkUnknown(obj, meta.HealthyCondition, meta.ProgressingReason,
		"Running health checks for revision %s with a timeout of %s", opts.revision, timeout)
	start := time.Now()
	if err := manager.WaitForSetWithContext(ctx, toCheck, ssa.WaitOptions{Interval: opts.pollInterval, Timeout: timeout}); err != nil {
		conditions.MarkFalse(obj, meta.HealthyCondition, meta.HealthCheckFailedReason, "%s", err)
		return fmt.Errorf("health check failed after %s: %w", time.Since(start).Round(time.Millisecond), err)
	}
	conditions.MarkTrue(obj, meta.HealthyCondition, meta.SucceededReason, "Health check passed in %s", time.Since(start).Round(time.Millisecond))
	return nil
}

// writeStatus writes the status through the status subresource, as the status manager does.
func writeStatus(ctx context.Context, c client.Client, obj *kustomizev1.Kustomization) error {
	err := c.Status().Update(ctx, obj, client.FieldOwner(statusManager))
	if apierrors.IsConflict(err) {
		return errors.New("the Kustomization was changed by someone else during the reconcile: " + err.Error())
	}
	return err
}

func changeEntries(set *ssa.ChangeSet) []changeEntry {
	out := make([]changeEntry, 0, len(set.Entries))
	for _, e := range set.Entries {
		out = append(out, changeEntry{ID: e.ObjMetadata.String(), Subject: e.Subject, Action: string(e.Action)})
	}
	return out
}
