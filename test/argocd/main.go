// Command argocd-fleet lets Argo CD's own code (github.com/argoproj/argo-cd/v3 v3.2.12 and the
// gitops-engine it requires) judge and deliver kyma-fleet's dist/gitops/argocd/ on the test
// cluster. One-shot subcommands, each printing one JSON line on stdout (logs on stderr):
//
//	generate          --kubeconfig K --namespace argocd --repo URL=DIR --appsets DIR
//	                  the Applications the ApplicationSet controller's generators and templates produce
//	                  from the ApplicationSets listed by DIR/kustomization.yaml (appset.go)
//	appset-controller --kubeconfig K --namespace argocd --repo URL=DIR [--timeout 60s]
//	                  one round of the real ApplicationSet controller over the ApplicationSets on the cluster
//	check             --kubeconfig K --repo URL=DIR --apps FILE   (FILE: a generate result)
//	                  each Application judged by the real Application CRD (server-side dry run) and
//	                  its source path looked up at its revision (check.go)
//	app-tick          --kubeconfig K --namespace argocd --repo URL=DIR --app NAME --now RFC3339 [--sync]
//	                  one pass of the (re-enacted) application controller over one Application:
//	                  operation/retry, refresh, auto-sync, gitops-engine sync (appcontroller.go)
//	cluster-check     --kubeconfig K --namespace argocd --cluster NAME
//	                  the cluster Secret of destination NAME resolved as argo-cd does (util/db), its REST
//	                  config (Cluster.RESTConfig) used against that cluster (clustercheck.go)
//	versions          the argo-cd and gitops-engine versions compiled in
//
// The repo-server is a stand-in over local git repositories (repos.go). Exit codes: 0 the command
// ran (its verdicts are in the JSON line), 2 it could not run ({"error": "..."} on stdout).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	log "github.com/sirupsen/logrus"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

type repoFlags map[string]string

func (r repoFlags) String() string { return fmt.Sprint(map[string]string(r)) }
func (r repoFlags) Set(v string) error {
	i := strings.LastIndex(v, "=")
	if i <= 0 {
		return fmt.Errorf("--repo wants URL=DIR, got %q", v)
	}
	r[v[:i]] = v[i+1:]
	return nil
}

func fail(err error) {
	printJSON(map[string]string{"error": err.Error()})
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: argocd-fleet generate|appset-controller|check|app-tick|cluster-check|versions [flags]"))
	}
	cmd := os.Args[1]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the cluster Argo CD runs in (KCP)")
	namespace := fs.String("namespace", "argocd", "Argo CD's namespace")
	repos := repoFlags{}
	fs.Var(repos, "repo", "URL=DIR: a repoURL served from a local git repository (repeatable)")
	appsets := fs.String("appsets", "", "folder with kustomization.yaml listing ApplicationSet files (generate)")
	appsFile := fs.String("apps", "", "a generate result (check)")
	appName := fs.String("app", "", "Application name (app-tick)")
	clusterName := fs.String("cluster", "", "destination cluster name (cluster-check)")
	now := fs.String("now", "", "the controller's clock, RFC3339 (app-tick; default: the real time)")
	manualSync := fs.Bool("sync", false, "request a sync operation first, as `argocd app sync` does (app-tick)")
	timeout := fs.Duration("timeout", 60*time.Second, "how long the ApplicationSet controller round may take")
	verbose := fs.Bool("v", false, "controller logs on stderr")
	_ = fs.Parse(os.Args[2:])

	log.SetOutput(os.Stderr)
	log.SetLevel(log.WarnLevel)
	if *verbose {
		log.SetLevel(log.InfoLevel)
	}
	klog.SetOutput(os.Stderr)
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(false)))

	if cmd == "versions" {
		printJSON(versions())
		return
	}
	if *kubeconfig == "" {
		fail(fmt.Errorf("--kubeconfig is required"))
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "argocd-fleet-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	lr := newLocalRepos(repos, work)
	ctx := context.Background()

	switch cmd {
	case "generate":
		if *appsets == "" {
			fail(fmt.Errorf("--appsets is required"))
		}
		res, err := runGenerate(ctx, cfg, *namespace, *appsets, lr)
		if err != nil {
			fail(err)
		}
		printJSON(map[string]any{"applicationSets": res})
	case "appset-controller":
		res, err := runAppSetController(ctx, cfg, *namespace, lr, *timeout)
		if err != nil {
			fail(err)
		}
		printJSON(map[string]any{"applicationSets": res})
	case "check":
		apps, err := readApps(*appsFile)
		if err != nil {
			fail(err)
		}
		res, err := runCheck(ctx, cfg, apps, lr)
		if err != nil {
			fail(err)
		}
		printJSON(map[string]any{"verdicts": res})
	case "app-tick":
		t := time.Now()
		if *now != "" {
			if t, err = time.Parse(time.RFC3339, *now); err != nil {
				fail(err)
			}
		}
		c, err := newAppController(ctx, cfg, *namespace, lr, t)
		if err != nil {
			fail(err)
		}
		res, err := c.tick(*appName, *manualSync)
		if err != nil {
			fail(err)
		}
		printJSON(res)
	case "cluster-check":
		if *clusterName == "" {
			fail(fmt.Errorf("--cluster is required"))
		}
		res, err := runClusterCheck(ctx, cfg, *namespace, *clusterName)
		if err != nil {
			fail(err)
		}
		printJSON(res)
	default:
		fail(fmt.Errorf("unknown command %q", cmd))
	}
}

func readApps(file string) ([]v1alpha1.Application, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var r struct {
		ApplicationSets []generateResult `json:"applicationSets"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	var out []v1alpha1.Application
	for _, as := range r.ApplicationSets {
		out = append(out, as.Applications...)
	}
	return out, nil
}

func versions() map[string]string {
	out := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	for _, m := range info.Deps {
		switch m.Path {
		case "github.com/argoproj/argo-cd/v3", "github.com/argoproj/gitops-engine", "sigs.k8s.io/kustomize/api", "k8s.io/client-go", "sigs.k8s.io/controller-runtime":
			v := m.Version
			if m.Replace != nil {
				v = m.Replace.Version
			}
			out[m.Path] = v
		}
	}
	return out
}
