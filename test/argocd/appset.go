// The ApplicationSet side, all argo-cd v3.2.12 code except the repo-server (repos.go):
//
//   - generate: the generators map the controller builds (generators.GetGenerators: Git, Clusters,
//     Matrix, ... with the Repos stand-in) and template.GenerateApplications, the function the
//     controller's Reconcile calls (Transform, matrix interpolation, goTemplate rendering with the
//     ApplicationSet's goTemplateOptions, e.g. missingkey=error). The ApplicationSets come from
//     YAML files (the rendered dist/gitops/argocd/, listed by its kustomization.yaml); the cluster
//     generator lists the real cluster Secrets of --namespace on --kubeconfig.
//   - appset-controller: the ApplicationSet controller itself for one round: a controller-runtime
//     manager set up as cmd/argocd-applicationset-controller does (cache restricted to the
//     namespace, SetK8SConfigDefaults, settings manager and ArgoDB, real metrics), the real
//     ApplicationSetReconciler (SetupWithManager: its watches on ApplicationSets, Applications and
//     cluster Secrets), started until every ApplicationSet of the namespace has been reconciled
//     after a refresh request (the argocd.argoproj.io/application-set-refresh annotation the
//     controller removes at the end of a successful Reconcile), or until --timeout. The
//     Applications it creates, updates and deletes are real objects on the cluster.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	log "github.com/sirupsen/logrus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/applicationset/controllers"
	"github.com/argoproj/argo-cd/v3/applicationset/controllers/template"
	"github.com/argoproj/argo-cd/v3/applicationset/generators"
	appsetmetrics "github.com/argoproj/argo-cd/v3/applicationset/metrics"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/db"
	argosettings "github.com/argoproj/argo-cd/v3/util/settings"
)

func newScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1alpha1.AddToScheme(scheme)
	return scheme
}

// readAppSets follows the wiring from a folder the way it is delivered: `kustomize build` of the
// folder (what `kubectl apply -k` and an Application's sync apply), every ApplicationSet it yields
// taken as is, and every Application it yields (an app-of-apps level, such as a shard Application)
// followed into its own source, built at its targetRevision from the repository (the repo-server
// stand-in). So the readers follow the lists and sources, never file names.
func readAppSets(dir string, repos *localRepos, depth int) ([]v1alpha1.ApplicationSet, error) {
	if depth > 4 {
		return nil, fmt.Errorf("%s: Applications nest deeper than 4 levels", dir)
	}
	objs, err := kustomizeBuild(dir)
	if err != nil {
		return nil, err
	}
	var out []v1alpha1.ApplicationSet
	for _, obj := range objs {
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		switch obj["kind"] {
		case "ApplicationSet":
			var as v1alpha1.ApplicationSet
			if err := yaml.UnmarshalStrict(raw, &as); err != nil {
				return nil, fmt.Errorf("%s: an ApplicationSet argo-cd cannot decode strictly: %w", dir, err)
			}
			out = append(out, as)
		case "Application":
			var app v1alpha1.Application
			if err := yaml.UnmarshalStrict(raw, &app); err != nil {
				return nil, fmt.Errorf("%s: an Application argo-cd cannot decode strictly: %w", dir, err)
			}
			src := app.Spec.GetSource()
			root, _, err := repos.Checkout(src.RepoURL, src.TargetRevision)
			if err != nil {
				return nil, fmt.Errorf("Application %s: %w", app.Name, err)
			}
			nested, err := readAppSets(filepath.Join(root, filepath.Clean(src.Path)), repos, depth+1)
			if err != nil {
				return nil, fmt.Errorf("Application %s: %w", app.Name, err)
			}
			out = append(out, nested...)
		default:
			return nil, fmt.Errorf("%s: unexpected %v in the Argo CD wiring", dir, obj["kind"])
		}
	}
	return out, nil
}

type generateResult struct {
	ApplicationSet string                 `json:"applicationSet"`
	Applications   []v1alpha1.Application `json:"applications"`
	Reason         string                 `json:"reason,omitempty"`
	Error          string                 `json:"error,omitempty"`
}

// runGenerate renders every ApplicationSet of the folder with the controller's generators and template code.
func runGenerate(ctx context.Context, cfg *rest.Config, namespace, appsetDir string, repos *localRepos) ([]generateResult, error) {
	appsets, err := readAppSets(appsetDir, repos, 0)
	if err != nil {
		return nil, err
	}
	k8s, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	c, err := ctrlclient.New(cfg, ctrlclient.Options{Scheme: newScheme()})
	if err != nil {
		return nil, err
	}
	// the controller's client reads through a cache restricted to its namespace
	nsClient := ctrlclient.NewNamespacedClient(c, namespace)
	gens := generators.GetGenerators(ctx, nsClient, k8s, namespace, repos, dyn, generators.NewSCMConfig("", nil, false, false, nil, false))
	var out []generateResult
	for _, as := range appsets {
		if as.Namespace == "" {
			as.Namespace = namespace
		}
		apps, reason, err := template.GenerateApplications(log.WithField("applicationset", as.Name), as, gens, &utils.Render{}, nsClient)
		r := generateResult{ApplicationSet: as.Name, Applications: apps, Reason: string(reason)}
		if err != nil {
			r.Error = err.Error()
		}
		if r.Applications == nil {
			r.Applications = []v1alpha1.Application{}
		}
		out = append(out, r)
	}
	return out, nil
}

type appsetRound struct {
	ApplicationSet string                             `json:"applicationSet"`
	Refreshed      bool                               `json:"refreshed"`
	Conditions     []v1alpha1.ApplicationSetCondition `json:"conditions"`
	Applications   []string                           `json:"applications"`
}

// runAppSetController runs the real ApplicationSet controller until each ApplicationSet was reconciled once after a refresh.
func runAppSetController(ctx context.Context, cfg *rest.Config, namespace string, repos *localRepos, timeout time.Duration) ([]appsetRound, error) {
	scheme := newScheme()
	cfg = rest.CopyConfig(cfg)
	if err := v1alpha1.SetK8SConfigDefaults(cfg); err != nil {
		return nil, err
	}
	direct, err := ctrlclient.New(cfg, ctrlclient.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	// request a refresh of every ApplicationSet (what `argocd appset` webhooks and users do), so the
	// end of the round is observable: Reconcile deletes the annotation when it finished successfully
	var list v1alpha1.ApplicationSetList
	if err := direct.List(ctx, &list, ctrlclient.InNamespace(namespace)); err != nil {
		return nil, err
	}
	for i := range list.Items {
		as := &list.Items[i]
		patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:"true"}}}`, common.AnnotationApplicationSetRefresh))
		if err := direct.Patch(ctx, as, ctrlclient.RawPatch(types.MergePatchType, patch)); err != nil {
			return nil, fmt.Errorf("requesting a refresh of %s: %w", as.Name, err)
		}
	}

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		Cache:                  ctrlcache.Options{DefaultNamespaces: map[string]ctrlcache.Config{namespace: {}}},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return nil, err
	}
	k8s, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(mgr.GetConfig())
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	settingsMgr := argosettings.NewSettingsManager(runCtx, k8s, namespace)
	argoDB := db.NewDB(namespace, settingsMgr, k8s)
	gens := generators.GetGenerators(runCtx, mgr.GetClient(), k8s, namespace, repos, dyn, generators.NewSCMConfig("", nil, false, false, nil, false))
	namespaces := []string{namespace}
	metrics := appsetmetrics.NewApplicationsetMetrics(utils.NewAppsetLister(mgr.GetClient()), nil,
		func(as *v1alpha1.ApplicationSet) bool { return utils.IsNamespaceAllowed(namespaces, as.Namespace) })
	if err := (&controllers.ApplicationSetReconciler{
		Generators:               gens,
		Client:                   mgr.GetClient(),
		Scheme:                   mgr.GetScheme(),
		Recorder:                 mgr.GetEventRecorderFor("applicationset-controller"),
		Renderer:                 &utils.Render{},
		Policy:                   utils.Policies["sync"],
		KubeClientset:            k8s,
		ArgoDB:                   argoDB,
		ArgoCDNamespace:          namespace,
		ApplicationSetNamespaces: namespaces,
		Metrics:                  &metrics,
		MaxResourcesStatusCount:  5000,
	}).SetupWithManager(mgr, false, 1); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()

	deadline := time.Now().Add(timeout)
	rounds := map[string]*appsetRound{}
	for {
		pending := 0
		for _, item := range list.Items {
			var as v1alpha1.ApplicationSet
			err := direct.Get(ctx, types.NamespacedName{Namespace: namespace, Name: item.Name}, &as)
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			_, still := as.Annotations[common.AnnotationApplicationSetRefresh]
			rounds[as.Name] = &appsetRound{ApplicationSet: as.Name, Refreshed: !still, Conditions: as.Status.Conditions}
			if still {
				pending++
			}
		}
		if pending == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case err := <-done:
			return nil, fmt.Errorf("the ApplicationSet controller stopped: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	cancel()
	<-done

	var apps v1alpha1.ApplicationList
	if err := direct.List(ctx, &apps, ctrlclient.InNamespace(namespace)); err != nil {
		return nil, err
	}
	var out []appsetRound
	for _, r := range rounds {
		r.Applications = []string{}
		for _, a := range apps.Items {
			if ref := metav1ControllerOf(&a); ref == r.ApplicationSet {
				r.Applications = append(r.Applications, a.Name)
			}
		}
		sort.Strings(r.Applications)
		if r.Conditions == nil {
			r.Conditions = []v1alpha1.ApplicationSetCondition{}
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ApplicationSet < out[j].ApplicationSet })
	return out, nil
}

func metav1ControllerOf(a *v1alpha1.Application) string {
	for _, ref := range a.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && ref.Kind == "ApplicationSet" {
			return ref.Name
		}
	}
	return ""
}

func printJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fail(err)
	}
	fmt.Println(string(b))
}
