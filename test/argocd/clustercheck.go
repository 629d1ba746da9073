// cluster-check: does an Argo CD cluster Secret on the KCP give access to its cluster, as argo-cd
// v3.2.12 itself reads and uses it? Written for `kyma-fleet register argocd` (issue 25): after KIM
// rotates a runtime's kubeconfig, the cluster Secret register wrote must be the one Argo CD resolves
// and its credentials must work, and a stale Secret must be seen failing.
//
// The path is argo-cd's own, the one the application controller takes for an Application's
// destination (controller/sync.go via util/argo GetDestinationCluster): the destination name is
// resolved with util/db (NewDB over the settings manager's Secret informer; db.GetClusterServersByName,
// then db.GetCluster, which turns the Secret into a v1alpha1.Cluster with util/db SecretToCluster),
// the REST config is Cluster.RESTConfig (RawRestConfig plus SetK8SConfigDefaults), and with it a
// client-go clientset asks the cluster who the caller is (SelfSubjectReview), its version
// (discovery) and its namespaces. Nothing is re-implemented here: a wrong Secret format, a wrong
// name or a refused credential shows as argo-cd would meet it.
package main

import (
	"context"
	"errors"
	"fmt"

	authnv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"github.com/argoproj/argo-cd/v3/util/db"
	argosettings "github.com/argoproj/argo-cd/v3/util/settings"
)

type clusterCheck struct {
	// Destination name looked up (an Application's spec.destination.name).
	Name string `json:"name"`
	// Resolved: argo-cd found exactly one cluster Secret of that name and made a Cluster of it.
	Resolved bool   `json:"resolved"`
	Server   string `json:"server,omitempty"`
	// Labels of the cluster Secret as SecretToCluster keeps them (secret-type removed).
	Labels map[string]string `json:"labels,omitempty"`
	// AuthKind: which credential of the Secret's config argo-cd uses (bearerToken, clientCertificate, basic, none).
	AuthKind string `json:"authKind,omitempty"`
	// Reachable: every request with the Cluster's REST config succeeded.
	Reachable bool `json:"reachable"`
	// User: who the SKR says the caller is (SelfSubjectReview).
	User          string   `json:"user,omitempty"`
	ServerVersion string   `json:"serverVersion,omitempty"`
	Namespaces    []string `json:"namespaces,omitempty"`
	// Status: HTTP status of the failed request (401 for a revoked credential), 0 when none.
	Status  int32  `json:"status,omitempty"`
	Failure string `json:"failure,omitempty"`
}

func authKind(c *v1alpha1.Cluster) string {
	switch {
	case c.Config.BearerToken != "":
		return "bearerToken"
	case len(c.Config.CertData) > 0:
		return "clientCertificate"
	case c.Config.Username != "":
		return "basic"
	case c.Config.ExecProviderConfig != nil || c.Config.AWSAuthConfig != nil:
		return "exec"
	}
	return "none"
}

func runClusterCheck(ctx context.Context, cfg *rest.Config, namespace, name string) (*clusterCheck, error) {
	k8s, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	settingsMgr := argosettings.NewSettingsManager(ctx, k8s, namespace)
	argoDB := db.NewDB(namespace, settingsMgr, k8s)
	out := &clusterCheck{Name: name}
	cluster, err := argo.GetDestinationCluster(ctx, v1alpha1.ApplicationDestination{Name: name}, argoDB)
	if err != nil {
		out.Failure = err.Error()
		return out, nil
	}
	out.Resolved, out.Server, out.Labels, out.AuthKind = true, cluster.Server, cluster.Labels, authKind(cluster)
	restCfg, err := cluster.RESTConfig()
	if err != nil {
		out.Failure = err.Error()
		return out, nil
	}
	skr, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		out.Failure = err.Error()
		return out, nil
	}
	failed := func(what string, err error) (*clusterCheck, error) {
		var st apierrors.APIStatus
		if errors.As(err, &st) {
			out.Status = st.Status().Code
		}
		out.Failure = fmt.Sprintf("%s: %v", what, err)
		return out, nil
	}
	review, err := skr.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return failed("SelfSubjectReview", err)
	}
	out.User = review.Status.UserInfo.Username
	version, err := skr.Discovery().ServerVersion()
	if err != nil {
		return failed("server version", err)
	}
	out.ServerVersion = version.GitVersion
	nss, err := skr.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return failed("list namespaces", err)
	}
	out.Namespaces = []string{}
	for _, ns := range nss.Items {
		out.Namespaces = append(out.Namespaces, ns.Name)
	}
	out.Reachable = true
	return out, nil
}
