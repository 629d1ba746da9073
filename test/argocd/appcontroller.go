// The application controller side. argo-cd's ApplicationController (controller/) needs a
// repo-server, Redis and its sharding to run; it is not started here. What it does for one
// Application is RE-ENACTED, in argo-cd's own types and with argo-cd's and gitops-engine's own
// library code wherever that is importable, after reading controller/appcontroller.go and
// controller/sync.go at v3.2.12:
//
//   - processRequestedAppOperation (appcontroller.go L1374-1528): an operation in progress whose
//     last attempt failed (phase Running with finishedAt) waits until RetryStrategy.NextRetryAt
//     (argo-cd's own function, v1alpha1/types.go L1494) and then, when retry.refresh is true,
//     clears operation.sync.revision(s) so the retry resolves the latest revision (L1429-1433,
//     the v3.2 feature); after the attempt, Failed/Error with retries left becomes Running with
//     finishedAt=now and retryCount+1 (L1480-1496); setOperationState (L1530-1560) writes
//     status.operationState with a merge patch and clears `operation` once completed.
//   - SyncAppState (sync.go L119-420): the sync result's source and revision, the destination
//     from the cluster Secret (util/argo GetDestinationCluster with util/db, then
//     Cluster.RESTConfig/RawRestConfig), gitops-engine sync.Reconcile over the live objects the
//     gitops-engine cluster cache finds for the app (GetManagedLiveObjs, tracking by annotation as
//     argo-cd's ResourceTracking reads it), and sync.NewSyncContext with the options sync.go passes
//     (WithOperationSettings, WithServerSideApply(ServerSideApply=true),
//     WithServerSideApplyManager("argocd-controller"), WithClientSideApplyMigration(unless
//     ClientSideApplyMigration=false, manager kubectl-client-side-apply),
//     WithSkipDryRunOnMissingResource, WithPruneLast, WithReplace, WithManifestValidation,
//     WithPrunePropagationPolicy (foreground), WithResourcesFilter); Sync() is called again while
//     the phase is Running, as the operation queue would requeue it.
//   - autoSync (appcontroller.go L2107-2231) with alreadyAttemptedSync: skipped while an
//     operation is in progress, only when OutOfSync, not again for a revision whose last attempt
//     failed, self-heal when the last attempt succeeded; the new operation takes
//     spec.syncPolicy.retry or the automated default {limit: 5}.
//
// Simplified, and said so: the comparison (CompareAppState) resolves the revision, builds the
// manifests and calls an object OutOfSync when it is missing or a field it sets differs from the
// live object (not argo-cd's diff normalisation); no Lua health overrides, no sync windows,
// hooks, impersonation, or self-heal backoff; time is the --now clock the harness passes, so
// backoffs are real durations on a virtual clock. The in-cluster destination
// (https://kubernetes.default.svc) is the cluster of --kubeconfig, where the controller runs.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	appclientset "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"github.com/argoproj/argo-cd/v3/util/db"
	argosettings "github.com/argoproj/argo-cd/v3/util/settings"
	clustercache "github.com/argoproj/gitops-engine/pkg/cache"
	"github.com/argoproj/gitops-engine/pkg/sync"
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"github.com/argoproj/gitops-engine/pkg/utils/kube"
	"github.com/argoproj/gitops-engine/pkg/utils/tracing"
)

type appController struct {
	ctx         context.Context
	cfg         *rest.Config // the cluster the controller runs in (KCP)
	namespace   string
	repos       *localRepos
	apps        appclientset.Interface
	settingsMgr *argosettings.SettingsManager
	db          db.ArgoDB
	now         time.Time
	log         []string
	caches      map[string]clustercache.ClusterCache
}

func newAppController(ctx context.Context, cfg *rest.Config, namespace string, repos *localRepos, now time.Time) (*appController, error) {
	k8s, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	apps, err := appclientset.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	settingsMgr := argosettings.NewSettingsManager(ctx, k8s, namespace)
	return &appController{ctx: ctx, cfg: cfg, namespace: namespace, repos: repos, apps: apps, settingsMgr: settingsMgr,
		db: db.NewDB(namespace, settingsMgr, k8s), now: now}, nil
}

func (c *appController) logf(format string, args ...any) {
	c.log = append(c.log, fmt.Sprintf(format, args...))
}

func (c *appController) metaNow() metav1.Time { return metav1.NewTime(c.now) }

func (c *appController) getApp(name string) (*v1alpha1.Application, error) {
	return c.apps.ArgoprojV1alpha1().Applications(c.namespace).Get(c.ctx, name, metav1.GetOptions{})
}

// tickResult is what one pass over an Application did, and its state afterwards.
type tickResult struct {
	App            string                   `json:"app"`
	Log            []string                 `json:"log"`
	Sync           v1alpha1.SyncStatus      `json:"sync"`
	Operation      *v1alpha1.Operation      `json:"operation,omitempty"`
	OperationState *v1alpha1.OperationState `json:"operationState,omitempty"`
}

// tick is one pass of the controller over the Application: the operation queue, then a refresh
// with auto-sync, then the operation queue again when auto-sync started an operation.
func (c *appController) tick(name string, manualSync bool) (*tickResult, error) {
	app, err := c.getApp(name)
	if err != nil {
		return nil, err
	}
	if manualSync && app.Operation == nil {
		// what `argocd app sync` does: an operation with the app's sync options, not automated
		op := v1alpha1.Operation{
			Sync: &v1alpha1.SyncOperation{
				Revision:    app.Spec.GetSource().TargetRevision,
				Prune:       app.Spec.SyncPolicy != nil && app.Spec.SyncPolicy.Automated != nil && app.Spec.SyncPolicy.Automated.Prune,
				SyncOptions: syncOptions(app),
			},
			InitiatedBy: v1alpha1.OperationInitiator{Username: "kyma-fleet-test"},
		}
		if app.Spec.SyncPolicy != nil && app.Spec.SyncPolicy.Retry != nil {
			op.Retry = *app.Spec.SyncPolicy.Retry
		}
		if app, err = argo.SetAppOperation(c.apps.ArgoprojV1alpha1().Applications(c.namespace), name, &op); err != nil {
			return nil, err
		}
		c.logf("manual sync requested")
	}
	if app.Operation != nil {
		c.processRequestedAppOperation(app)
		if app, err = c.getApp(name); err != nil {
			return nil, err
		}
	}
	started, err := c.refreshAndAutoSync(app, true)
	if err != nil {
		return nil, err
	}
	if started {
		if app, err = c.getApp(name); err != nil {
			return nil, err
		}
		c.processRequestedAppOperation(app)
		// a completed operation requests a refresh (appcontroller.go L1498-1520): the status shows the result
		if app, err = c.getApp(name); err != nil {
			return nil, err
		}
		if app.Operation == nil {
			if _, err := c.refreshAndAutoSync(app, false); err != nil {
				return nil, err
			}
		}
	}
	if app, err = c.getApp(name); err != nil {
		return nil, err
	}
	return &tickResult{App: name, Log: c.log, Sync: app.Status.Sync, Operation: app.Operation, OperationState: app.Status.OperationState}, nil
}

func syncOptions(app *v1alpha1.Application) v1alpha1.SyncOptions {
	if app.Spec.SyncPolicy == nil {
		return nil
	}
	return app.Spec.SyncPolicy.SyncOptions
}

func isOperationInProgress(app *v1alpha1.Application) bool {
	return app.Status.OperationState != nil && !app.Status.OperationState.Phase.Completed()
}

// processRequestedAppOperation: appcontroller.go L1374-1528.
func (c *appController) processRequestedAppOperation(app *v1alpha1.Application) {
	var state *v1alpha1.OperationState
	if isOperationInProgress(app) {
		state = app.Status.OperationState.DeepCopy()
		if state.Phase == synccommon.OperationRunning && state.FinishedAt != nil {
			retryAt, err := app.Status.OperationState.Operation.Retry.NextRetryAt(state.FinishedAt.Time, state.RetryCount)
			if err != nil {
				state.Phase = synccommon.OperationError
				state.Message = err.Error()
				c.setOperationState(app, state)
				return
			}
			if retryAfter := retryAt.Sub(c.now); retryAfter > 0 {
				c.logf("skipping retry of in-progress operation until %s", retryAt.Format(time.RFC3339))
				return
			}
			extraMsg := ""
			if state.Operation.Retry.Refresh {
				extraMsg += " with latest revisions"
				state.Operation.Sync.Revision = ""
				state.Operation.Sync.Revisions = nil
			}
			state.Message = fmt.Sprintf("Retrying operation%s. Attempt #%d", extraMsg, state.RetryCount)
			state.FinishedAt = nil
			state.SyncResult = nil
			c.setOperationState(app, state)
			c.logf("%s", state.Message)
		}
	} else {
		state = &v1alpha1.OperationState{Phase: synccommon.OperationRunning, Operation: *app.Operation, StartedAt: c.metaNow()}
		c.setOperationState(app, state)
		c.logf("initialized new operation (revision %q)", app.Operation.Sync.Revision)
	}

	c.syncAppState(app, state)

	if state.Phase == synccommon.OperationFailed || state.Phase == synccommon.OperationError {
		if state.RetryCount < state.Operation.Retry.Limit || state.Operation.Retry.Limit < 0 {
			now := c.metaNow()
			if retryAt, err := state.Operation.Retry.NextRetryAt(now.Time, state.RetryCount); err != nil {
				state.Phase = synccommon.OperationError
				state.Message = fmt.Sprintf("%s (failed to retry: %v)", state.Message, err)
			} else {
				state.Phase = synccommon.OperationRunning
				state.FinishedAt = &now
				state.RetryCount++
				state.Message = fmt.Sprintf("%s. Retrying attempt #%d at %s.", state.Message, state.RetryCount, retryAt.Format(time.Kitchen))
			}
		} else if state.RetryCount > 0 {
			state.Message = fmt.Sprintf("%s (retried %d times).", state.Message, state.RetryCount)
		}
	}
	c.setOperationState(app, state)
	c.logf("operation phase %s: %s", state.Phase, state.Message)
}

// setOperationState: appcontroller.go L1530-1575 (merge patch of status.operationState; operation cleared when completed).
func (c *appController) setOperationState(app *v1alpha1.Application, state *v1alpha1.OperationState) {
	if state.Phase.Completed() {
		now := c.metaNow()
		state.FinishedAt = &now
	}
	patch := map[string]any{"status": map[string]any{"operationState": state}}
	if state.Phase.Completed() {
		patch["operation"] = nil
	}
	if reflect.DeepEqual(app.Status.OperationState, state) {
		return
	}
	patchJSON, err := json.Marshal(patch)
	if err != nil {
		panic(err)
	}
	if app.Status.OperationState != nil && app.Status.OperationState.FinishedAt != nil && state.FinishedAt == nil {
		// jsonpatch.MergeMergePatches in argo-cd: finishedAt null
		var m map[string]any
		_ = json.Unmarshal(patchJSON, &m)
		m["status"].(map[string]any)["operationState"].(map[string]any)["finishedAt"] = nil
		patchJSON, _ = json.Marshal(m)
	}
	updated, err := c.apps.ArgoprojV1alpha1().Applications(app.Namespace).Patch(c.ctx, app.Name, types.MergePatchType, patchJSON, metav1.PatchOptions{})
	if err != nil {
		fail(fmt.Errorf("error patching application with operation state: %w", err))
	}
	*app = *updated
}

// destination resolves the Application's destination as argo-cd does and gives its REST configs.
func (c *appController) destination(app *v1alpha1.Application) (*v1alpha1.Cluster, *rest.Config, *rest.Config, error) {
	dest, err := argo.GetDestinationCluster(c.ctx, app.Spec.Destination, c.db)
	if err != nil {
		return nil, nil, nil, err
	}
	if dest.Server == v1alpha1.KubernetesInternalAPIServerAddr {
		cfg := rest.CopyConfig(c.cfg)
		if err := v1alpha1.SetK8SConfigDefaults(cfg); err != nil {
			return nil, nil, nil, err
		}
		return dest, cfg, rest.CopyConfig(c.cfg), nil
	}
	raw, err := dest.RawRestConfig()
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, err := dest.RESTConfig() // applies SetK8SConfigDefaults (QPS, burst, timeout) as argo-cd does
	if err != nil {
		return nil, nil, nil, err
	}
	return dest, cfg, raw, nil
}

type comparison struct {
	revision string
	targets  []*unstructured.Unstructured
	recon    sync.ReconciliationResult
	status   v1alpha1.SyncStatusCode
	outOf    []v1alpha1.ResourceStatus
	cfg      *rest.Config
	raw      *rest.Config
	cache    clustercache.ClusterCache
}

func (c *appController) tracking() (v1alpha1.TrackingMethod, string, string, error) {
	tm, err := c.settingsMgr.GetTrackingMethod()
	if err != nil {
		return "", "", "", err
	}
	id, err := c.settingsMgr.GetInstallationID()
	if err != nil {
		return "", "", "", err
	}
	key, err := c.settingsMgr.GetAppInstanceLabelKey()
	if err != nil {
		return "", "", "", err
	}
	return v1alpha1.TrackingMethod(tm), id, key, nil
}

// compareAppState: the manifests of the revision, the managed live objects, gitops-engine's Reconcile.
func (c *appController) compareAppState(app *v1alpha1.Application, revision string) (*comparison, error) {
	src := app.Spec.GetSource()
	if revision != "" {
		src.TargetRevision = revision
	}
	tm, installationID, labelKey, err := c.tracking()
	if err != nil {
		return nil, err
	}
	appInstance := app.InstanceName(c.namespace)
	targets, sha, err := c.repos.Manifests(src, appInstance, app.Spec.Destination.Namespace, installationID, tm, labelKey)
	if err != nil {
		return &comparison{revision: sha}, err
	}
	_, cfg, raw, err := c.destination(app)
	if err != nil {
		return &comparison{revision: sha, targets: targets}, err
	}
	tracker := argo.NewResourceTracking()
	if c.caches == nil {
		c.caches = map[string]clustercache.ClusterCache{}
	}
	cache, ok := c.caches[cfg.Host]
	if !ok {
		// the live state cache of argo-cd's controller is gitops-engine's cluster cache with the
		// app name of each object (tracking annotation) as its resource info
		cache = clustercache.NewClusterCache(cfg,
			clustercache.SetLogr(logr.Discard()),
			clustercache.SetPopulateResourceInfoHandler(func(un *unstructured.Unstructured, _ bool) (any, bool) {
				return tracker.GetAppName(un, labelKey, tm, installationID), false
			}))
		c.caches[cfg.Host] = cache
	}
	if err := cache.EnsureSynced(); err != nil {
		return nil, fmt.Errorf("cluster cache of %s: %w", cfg.Host, err)
	}
	live, err := cache.GetManagedLiveObjs(targets, func(r *clustercache.Resource) bool {
		name, _ := r.Info.(string)
		return name == appInstance
	})
	if err != nil {
		return nil, err
	}
	recon := sync.Reconcile(targets, live, app.Spec.Destination.Namespace, cache)
	cmp := &comparison{revision: sha, targets: targets, recon: recon, status: v1alpha1.SyncStatusCodeSynced, cfg: cfg, raw: raw, cache: cache}
	for i := range recon.Target {
		t, l := recon.Target[i], recon.Live[i]
		obj := t
		if obj == nil {
			obj = l
		}
		gvk := obj.GroupVersionKind()
		rs := v1alpha1.ResourceStatus{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), Status: v1alpha1.SyncStatusCodeSynced}
		switch {
		case t == nil:
			rs.Status, rs.RequiresPruning = v1alpha1.SyncStatusCodeOutOfSync, true
		case l == nil || !subset(t.Object, l.Object):
			rs.Status = v1alpha1.SyncStatusCodeOutOfSync
		}
		if rs.Status != v1alpha1.SyncStatusCodeSynced {
			cmp.status = v1alpha1.SyncStatusCodeOutOfSync
		}
		cmp.outOf = append(cmp.outOf, rs)
	}
	return cmp, nil
}

// subset: every field the target sets has the same value live (lists: each target item is a subset of some live item).
func subset(target, live any) bool {
	switch t := target.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range t {
			if k == "status" {
				continue
			}
			if !subset(v, l[k]) {
				return false
			}
		}
		return true
	case []any:
		l, ok := live.([]any)
		if !ok {
			return len(t) == 0
		}
		for _, ti := range t {
			found := false
			for _, li := range l {
				if subset(ti, li) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	default:
		return fmt.Sprint(target) == fmt.Sprint(live)
	}
}

// syncAppState: controller/sync.go SyncAppState L119-420, the parts listed in the header.
func (c *appController) syncAppState(app *v1alpha1.Application, state *v1alpha1.OperationState) {
	if state.Operation.Sync == nil {
		state.Phase = synccommon.OperationError
		state.Message = "Invalid operation request: no operation specified"
		return
	}
	syncOp := *state.Operation.Sync
	if state.SyncResult == nil {
		state.SyncResult = &v1alpha1.SyncOperationResult{Source: app.Spec.GetSource(), Revision: syncOp.Revision}
		if syncOp.Source != nil {
			state.SyncResult.Source = *syncOp.Source
		}
	}
	cmp, err := c.compareAppState(app, state.SyncResult.Revision)
	if cmp != nil && cmp.revision != "" {
		state.SyncResult.Revision = cmp.revision
	}
	if err != nil {
		state.Phase = synccommon.OperationError
		state.Message = err.Error()
		return
	}
	tm, installationID, _, err := c.tracking()
	if err != nil {
		state.Phase = synccommon.OperationError
		state.Message = err.Error()
		return
	}
	kubectl := &kube.KubectlCmd{Log: logr.Discard(), Tracer: tracing.NopTracer{}}
	openAPISchema, _, err := kubectl.LoadOpenAPISchema(cmp.cfg)
	if err != nil {
		state.Phase = synccommon.OperationError
		state.Message = fmt.Sprintf("failed to load openAPISchema: %v", err)
		return
	}
	initial := make([]synccommon.ResourceSyncResult, len(state.SyncResult.Resources))
	for i, res := range state.SyncResult.Resources {
		initial[i] = synccommon.ResourceSyncResult{ResourceKey: kube.ResourceKey{Group: res.Group, Kind: res.Kind, Namespace: res.Namespace, Name: res.Name},
			Message: res.Message, Status: res.Status, HookPhase: res.HookPhase, HookType: res.HookType, SyncPhase: res.SyncPhase, Version: res.Version, Order: i + 1}
	}
	prunePropagationPolicy := metav1.DeletePropagationForeground
	switch {
	case syncOp.SyncOptions.HasOption("PrunePropagationPolicy=background"):
		prunePropagationPolicy = metav1.DeletePropagationBackground
	case syncOp.SyncOptions.HasOption("PrunePropagationPolicy=orphan"):
		prunePropagationPolicy = metav1.DeletePropagationOrphan
	}
	clientSideApplyManager := synccommon.DefaultClientSideApplyMigrationManager
	if v := app.GetAnnotation(common.AnnotationClientSideApplyMigrationManager); v != "" {
		clientSideApplyManager = v
	}
	tracker := argo.NewResourceTracking()
	appInstance := app.InstanceName(c.namespace)
	opts := []sync.SyncOpt{
		sync.WithLogr(logr.Discard()),
		sync.WithOperationSettings(syncOp.DryRun, syncOp.Prune, syncOp.SyncStrategy.Force(), syncOp.IsApplyStrategy() || len(syncOp.Resources) > 0),
		sync.WithInitialState(state.Phase, state.Message, initial, state.StartedAt),
		sync.WithResourcesFilter(func(key kube.ResourceKey, target *unstructured.Unstructured, live *unstructured.Unstructured) bool {
			if len(syncOp.Resources) > 0 && !argo.ContainsSyncResource(key.Name, key.Namespace, schema.GroupVersionKind{Kind: key.Kind, Group: key.Group}, syncOp.Resources) {
				return false
			}
			// isSelfReferencedObj: a live object tracked for another app is not touched
			if live != nil && target != nil {
				if id := tracker.GetAppInstance(live, tm, installationID); id != nil && id.ApplicationName != appInstance {
					return false
				}
			}
			return true
		}),
		sync.WithManifestValidation(!syncOp.SyncOptions.HasOption(synccommon.SyncOptionsDisableValidation)),
		sync.WithPruneLast(syncOp.SyncOptions.HasOption(synccommon.SyncOptionPruneLast)),
		sync.WithPrunePropagationPolicy(&prunePropagationPolicy),
		sync.WithReplace(syncOp.SyncOptions.HasOption(synccommon.SyncOptionReplace)),
		sync.WithServerSideApply(syncOp.SyncOptions.HasOption(synccommon.SyncOptionServerSideApply)),
		sync.WithServerSideApplyManager(common.ArgoCDSSAManager),
		sync.WithClientSideApplyMigration(!syncOp.SyncOptions.HasOption(synccommon.SyncOptionDisableClientSideApplyMigration), clientSideApplyManager),
		sync.WithSkipDryRunOnMissingResource(syncOp.SyncOptions.HasOption(synccommon.SyncOptionSkipDryRunOnMissingResource)),
	}
	if syncOp.SyncOptions.HasOption("CreateNamespace=true") {
		state.Phase = synccommon.OperationError
		state.Message = "CreateNamespace=true is not re-enacted here"
		return
	}
	syncCtx, cleanup, err := sync.NewSyncContext(cmp.revision, cmp.recon, cmp.cfg, cmp.raw, kubectl, app.Spec.Destination.Namespace, openAPISchema, opts...)
	if err != nil {
		state.Phase = synccommon.OperationError
		state.Message = fmt.Sprintf("failed to initialize sync context: %v", err)
		return
	}
	defer cleanup()
	var resState []synccommon.ResourceSyncResult
	for i := 0; i < 60; i++ {
		syncCtx.Sync()
		state.Phase, state.Message, resState = syncCtx.GetState()
		if state.Phase != synccommon.OperationRunning {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	state.SyncResult.Resources = nil
	for _, res := range resState {
		state.SyncResult.Resources = append(state.SyncResult.Resources, &v1alpha1.ResourceResult{
			HookType: res.HookType, Group: res.ResourceKey.Group, Kind: res.ResourceKey.Kind, Namespace: res.ResourceKey.Namespace,
			Name: res.ResourceKey.Name, Version: res.Version, SyncPhase: res.SyncPhase, HookPhase: res.HookPhase, Status: res.Status, Message: res.Message,
		})
	}
	c.logf("sync to %s: %s %s", short(cmp.revision), state.Phase, state.Message)
}

func short(sha string) string {
	if len(sha) > 8 {
		return sha[:8]
	}
	return sha
}

// refreshAndAutoSync: processAppRefresh's CompareAppState (simplified, see header) and autoSync (L2107-2231).
func (c *appController) refreshAndAutoSync(app *v1alpha1.Application, allowAutoSync bool) (bool, error) {
	cmp, err := c.compareAppState(app, "")
	status := v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeUnknown, ComparedTo: v1alpha1.ComparedTo{Source: app.Spec.GetSource(), Destination: app.Spec.Destination}}
	var resources []v1alpha1.ResourceStatus
	conditions := []v1alpha1.ApplicationCondition{}
	if cmp != nil {
		status.Revision = cmp.revision
	}
	if err != nil {
		conditions = append(conditions, v1alpha1.ApplicationCondition{Type: v1alpha1.ApplicationConditionComparisonError, Message: err.Error(), LastTransitionTime: ptrTime(c.metaNow())})
	} else {
		status.Status = cmp.status
		resources = cmp.outOf
	}
	started := false
	if err == nil && allowAutoSync {
		if cond := c.autoSync(app, &status, resources); cond != nil {
			conditions = append(conditions, *cond)
		} else if app.Operation == nil {
			if fresh, gerr := c.getApp(app.Name); gerr == nil && fresh.Operation != nil {
				started = true
			}
		}
	}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"sync": status, "resources": resources, "conditions": conditions,
		"reconciledAt": c.metaNow()}})
	if _, perr := c.apps.ArgoprojV1alpha1().Applications(app.Namespace).Patch(c.ctx, app.Name, types.MergePatchType, patch, metav1.PatchOptions{}); perr != nil {
		return false, perr
	}
	c.logf("refresh: %s at %s", status.Status, short(status.Revision))
	return started, nil
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

func (c *appController) autoSync(app *v1alpha1.Application, syncStatus *v1alpha1.SyncStatus, resources []v1alpha1.ResourceStatus) *v1alpha1.ApplicationCondition {
	if app.Spec.SyncPolicy == nil || !app.Spec.SyncPolicy.IsAutomatedSyncEnabled() {
		return nil
	}
	if app.Operation != nil {
		c.logf("Skipping auto-sync: another operation is in progress")
		return nil
	}
	if syncStatus.Status != v1alpha1.SyncStatusCodeOutOfSync {
		c.logf("Skipping auto-sync: application status is %s", syncStatus.Status)
		return nil
	}
	if !app.Spec.SyncPolicy.Automated.Prune {
		requirePruneOnly := true
		for _, r := range resources {
			if r.Status != v1alpha1.SyncStatusCodeSynced && !r.RequiresPruning {
				requirePruneOnly = false
				break
			}
		}
		if requirePruneOnly {
			c.logf("Skipping auto-sync: need to prune extra resources only but automated prune is disabled")
			return nil
		}
	}
	source := app.Spec.GetSource()
	op := v1alpha1.Operation{
		Sync: &v1alpha1.SyncOperation{Source: &source, Revision: syncStatus.Revision, Prune: app.Spec.SyncPolicy.Automated.Prune,
			SyncOptions: app.Spec.SyncPolicy.SyncOptions},
		InitiatedBy: v1alpha1.OperationInitiator{Automated: true},
		Retry:       v1alpha1.RetryStrategy{Limit: 5},
	}
	if app.Spec.SyncPolicy.Retry != nil {
		op.Retry = *app.Spec.SyncPolicy.Retry
	}
	// alreadyAttemptedSync (single source, revisions compared)
	if st := app.Status.OperationState; st != nil {
		attempted, phase := false, st.Phase
		if st.SyncResult == nil {
			attempted = st.Phase.Completed()
		} else {
			attempted = st.SyncResult.Revision == syncStatus.Revision && reflect.DeepEqual(st.SyncResult.Source, source)
		}
		if attempted {
			if !phase.Successful() {
				msg := fmt.Sprintf("Failed last sync attempt to %s: %s", syncStatus.Revision, st.Message)
				c.logf("Skipping auto-sync: failed previous sync attempt to %s", short(syncStatus.Revision))
				return &v1alpha1.ApplicationCondition{Type: v1alpha1.ApplicationConditionSyncError, Message: msg, LastTransitionTime: ptrTime(c.metaNow())}
			}
			if !app.Spec.SyncPolicy.Automated.SelfHeal {
				c.logf("Skipping auto-sync: most recent sync already to %s", short(syncStatus.Revision))
				return nil
			}
			for _, r := range resources {
				if r.Status != v1alpha1.SyncStatusCodeSynced {
					op.Sync.Resources = append(op.Sync.Resources, v1alpha1.SyncOperationResource{Kind: r.Kind, Group: r.Group, Name: r.Name})
				}
			}
			op.Sync.SelfHealAttemptsCount++
		}
	}
	if _, err := argo.SetAppOperation(c.apps.ArgoprojV1alpha1().Applications(app.Namespace), app.Name, &op); err != nil {
		c.logf("Failed to initiate auto-sync: %v", err)
		return &v1alpha1.ApplicationCondition{Type: v1alpha1.ApplicationConditionSyncError, Message: err.Error(), LastTransitionTime: ptrTime(c.metaNow())}
	}
	c.logf("Initiated automated sync to '%s'", short(syncStatus.Revision))
	return nil
}
