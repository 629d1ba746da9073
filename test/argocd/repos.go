// The repo-server stand-in. Argo CD's ApplicationSet controller and application controller get
// files and manifests from argocd-repo-server over gRPC; a test has no repo-server, so this file
// serves the same two questions from local git repositories (the test commits the rendered
// repository into one), mapped from the repoURL the ApplicationSets and Applications name
// (--repo URL=DIR). It is a STAND-IN for the repo-server, not its code: what runs here is the
// sequence the repo-server runs, with argo-cd's own git client (util/git nativeGitClient):
//
//   - Git files (services.Repos.GetFiles, used by the real Git files generator): as
//     reposerver/repository/repository.go Service.GetGitFiles at v3.2.12: LsRemote(revision) to
//     a commit SHA (newClientResolveRevision), Init + Fetch("") + Checkout (checkoutRevision),
//     LsFiles(pattern, enableNewGitFileGlobbing) and the files' contents keyed by repo path.
//     No cache: every call resolves the revision again (noRevisionCache behaviour).
//   - Manifests (GenerateManifest for a Kustomize source): the repo-server runs the `kustomize`
//     binary (`kustomize build <path>`, util/kustomize); here sigs.k8s.io/kustomize/api krusty
//     builds the same folder in-process with kustomize's defaults (load restrictions: root only),
//     then every object except CRDs gets argo-cd's tracking annotation exactly as
//     GenerateManifests does it (argo.NewResourceTracking().SetAppInstance, annotation tracking).
//   - Directories (GetDirectories) are not used by kyma-fleet's wiring and fail loudly.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/argoproj/argo-cd/v3/applicationset/services"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"github.com/argoproj/argo-cd/v3/util/git"
	"github.com/argoproj/gitops-engine/pkg/utils/kube"
)

// localRepos maps repoURLs to local git repositories and checks out revisions into work folders.
type localRepos struct {
	byURL   map[string]string // normalized repoURL -> local repository folder
	workDir string
	newGlob bool // the ApplicationSet controller's --enable-new-git-file-globbing (default false)

	mu        sync.Mutex
	checkouts map[string]string // url@sha -> checked-out folder
	resolved  map[string]string // url@revision -> sha, for the life of this one-shot process
}

var _ services.Repos = (*localRepos)(nil)

func newLocalRepos(mapping map[string]string, workDir string) *localRepos {
	byURL := map[string]string{}
	for u, dir := range mapping {
		byURL[git.NormalizeGitURL(u)] = dir
	}
	return &localRepos{byURL: byURL, workDir: workDir, checkouts: map[string]string{}, resolved: map[string]string{}}
}

func (r *localRepos) localDir(repoURL string) (string, error) {
	dir, ok := r.byURL[git.NormalizeGitURL(repoURL)]
	if !ok {
		return "", fmt.Errorf("repository %q is not known to the repo-server stand-in (give --repo %s=DIR)", repoURL, repoURL)
	}
	return dir, nil
}

// client is argo-cd's native git client with the local repository as its remote "origin".
func (r *localRepos) client(repoURL, root string) (git.Client, error) {
	dir, err := r.localDir(repoURL)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return git.NewClientExt("file://"+abs, root, git.NopCreds{}, true, false, "", "")
}

// Resolve returns the commit SHA a revision (branch, tag, SHA, HEAD) names, as LsRemote does for the
// repo-server; once per repository and revision in one run of this program (a run is one controller
// step, so a commit made between two runs is seen by the next).
func (r *localRepos) Resolve(repoURL, revision string) (string, error) {
	key := git.NormalizeGitURL(repoURL) + "@" + revision
	r.mu.Lock()
	sha, ok := r.resolved[key]
	r.mu.Unlock()
	if ok {
		return sha, nil
	}
	c, err := r.client(repoURL, filepath.Join(r.workDir, "ls-remote"))
	if err != nil {
		return "", err
	}
	sha, err = c.LsRemote(revision)
	if err != nil {
		return "", fmt.Errorf("unable to resolve git revision %s: %w", revision, err)
	}
	r.mu.Lock()
	r.resolved[key] = sha
	r.mu.Unlock()
	return sha, nil
}

// Checkout returns a folder holding the repository at the revision, and the resolved SHA.
func (r *localRepos) Checkout(repoURL, revision string) (string, string, error) {
	sha, err := r.Resolve(repoURL, revision)
	if err != nil {
		return "", "", err
	}
	key := git.NormalizeGitURL(repoURL) + "@" + sha
	r.mu.Lock()
	defer r.mu.Unlock()
	if dir, ok := r.checkouts[key]; ok {
		return dir, sha, nil
	}
	root, err := os.MkdirTemp(r.workDir, "checkout-")
	if err != nil {
		return "", "", err
	}
	c, err := r.client(repoURL, root)
	if err != nil {
		return "", "", err
	}
	// checkoutRevision of the repo-server: Init, Fetch("") unless present, Checkout
	if err := c.Init(); err != nil {
		return "", "", fmt.Errorf("failed to initialize git repo: %w", err)
	}
	if !c.IsRevisionPresent(sha) {
		if err := c.Fetch(""); err != nil {
			return "", "", fmt.Errorf("failed to fetch default: %w", err)
		}
	}
	if _, err := c.Checkout(sha, false); err != nil {
		return "", "", fmt.Errorf("failed to checkout revision %s: %w", sha, err)
	}
	r.checkouts[key] = root
	return root, sha, nil
}

// GetFiles implements services.Repos as Service.GetGitFiles does.
func (r *localRepos) GetFiles(_ context.Context, repoURL, revision, _ string, pattern string, _ bool, _ bool) (map[string][]byte, error) {
	root, _, err := r.Checkout(repoURL, revision)
	if err != nil {
		return nil, err
	}
	c, err := r.client(repoURL, root)
	if err != nil {
		return nil, err
	}
	files, err := c.LsFiles(pattern, r.newGlob)
	if err != nil {
		return nil, fmt.Errorf("unable to list files. repo %s with revision %s pattern %s: %w", repoURL, revision, pattern, err)
	}
	res := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		res[f] = b
	}
	return res, nil
}

// GetDirectories is not used by kyma-fleet's ApplicationSets.
func (r *localRepos) GetDirectories(context.Context, string, string, string, bool, bool) ([]string, error) {
	return nil, fmt.Errorf("the repo-server stand-in does not serve the Git directories generator")
}

// PathExists says whether a folder exists in the repository at the revision.
func (r *localRepos) PathExists(repoURL, revision, p string) (bool, string, error) {
	root, sha, err := r.Checkout(repoURL, revision)
	if err != nil {
		return false, "", err
	}
	clean := filepath.Clean(p)
	if filepath.IsAbs(clean) || strings.HasPrefix(clean, "..") {
		return false, sha, nil
	}
	st, err := os.Stat(filepath.Join(root, clean))
	return err == nil && st.IsDir(), sha, nil
}

// Manifests builds the source path at the revision with kustomize and sets argo-cd's tracking annotation.
func (r *localRepos) Manifests(src v1alpha1.ApplicationSource, appName, appNamespace, installationID string, trackingMethod v1alpha1.TrackingMethod, appLabelKey string) ([]*unstructured.Unstructured, string, error) {
	root, sha, err := r.Checkout(src.RepoURL, src.TargetRevision)
	if err != nil {
		return nil, "", err
	}
	dir := filepath.Join(root, filepath.Clean(src.Path))
	if _, err := os.Stat(filepath.Join(dir, "kustomization.yaml")); err != nil {
		return nil, sha, fmt.Errorf("%s: the stand-in builds Kustomize sources only (no kustomization.yaml): %w", src.Path, err)
	}
	objs, err := kustomizeBuild(dir)
	if err != nil {
		return nil, sha, fmt.Errorf("%s: %w", src.Path, err)
	}
	tracking := argo.NewResourceTracking()
	var out []*unstructured.Unstructured
	for _, m := range objs {
		un := &unstructured.Unstructured{Object: m}
		if !kube.IsCRD(un) {
			if err := tracking.SetAppInstance(un, appLabelKey, appName, appNamespace, trackingMethod, installationID); err != nil {
				return nil, sha, fmt.Errorf("failed to set app instance tracking info on manifest: %w", err)
			}
		}
		out = append(out, un)
	}
	return out, sha, nil
}

// kustomizeBuild is `kustomize build DIR` in-process (krusty, kustomize's default options).
func kustomizeBuild(dir string) ([]map[string]any, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build: %w", err)
	}
	var out []map[string]any
	for _, res := range resMap.Resources() {
		m, err := res.Map()
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
