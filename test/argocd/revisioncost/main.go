// Command revisioncost measures what a new revision of the fleet repository costs Argo CD's
// repo-server, with argo-cd v3.2.12's own repo-server code (reposerver/repository.Service, its
// manifest and git-files caches over util/cache's in-memory client, its git client on the git CLI,
// and the `kustomize` binary it runs) called in-process, as the application controller and the
// ApplicationSet controller call it over gRPC. It is a measuring tool for `npm run bench`, not a
// judge: nothing here decides whether the wiring is right (test/argocd does that).
//
// What it replays, per revision, read from argo-cd v3.2.12:
//   - the ApplicationSet controller's Git files generator: one GetGitFiles per ApplicationSet and
//     pattern at the revision (applicationset/services/repo_service.go GetFiles);
//   - the application controller's comparison of every Application (controller/state.go
//     GetRepoObjs L130-330): when the Application carries argocd.argoproj.io/manifest-generate-paths
//     and has a synced revision, UpdateRevisionForPaths(synced → new) first (unchanged paths copy
//     the cached manifests to the new revision), then GenerateManifest at the new revision, with the
//     request fields GetRepoObjs sends (annotation tracking, app.kubernetes.io/instance, no Helm,
//     no runtime state). Applications are compared by --workers goroutines at once (the
//     controller's --status-processors, default 20).
//
// Left out, and said so in docs/performance.md: gRPC and Redis (the cache is the in-memory client:
// no network, no serialisation to Redis), revision resolution (revisions are passed as commit SHAs,
// as the controller passes them once resolved), the controller's diff and sync, and the
// ApplicationSet controller's writes. Every kustomize build is counted by a wrapper around the
// binary (a build is a manifest generation the cache did not answer).
//
// Usage: revisioncost --repo DIR --apps FILE --appsets FILE --kustomize BIN --revisions A,B,C
//
//	[--workers 20] [--root DIR]
//
// FILE: a JSON array of Application (resp. ApplicationSet) objects. Phases: cold at A (empty cache);
// A→B as the controller does it with the annotation honoured; B→C with the annotation ignored (what
// the same commit costs without manifest-generate-paths). Prints one JSON line on stdout.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	log "github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	reposervercache "github.com/argoproj/argo-cd/v3/reposerver/cache"
	"github.com/argoproj/argo-cd/v3/reposerver/metrics"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	apppath "github.com/argoproj/argo-cd/v3/util/app/path"
	cacheutil "github.com/argoproj/argo-cd/v3/util/cache"
	"github.com/argoproj/argo-cd/v3/util/git"
)

// appLabelKey and the tracking method are argo-cd 3's defaults (argocd-cm unset).
const appLabelKey = "app.kubernetes.io/instance"

type phase struct {
	Name                string         `json:"name"`
	Revision            string         `json:"revision"`
	Seconds             float64        `json:"seconds"`
	CPUSeconds          float64        `json:"cpuSeconds"`
	GitFilesCalls       int            `json:"gitFilesCalls"`
	Applications        int            `json:"applications"`
	UpdateRevisionCalls int            `json:"updateRevisionCalls"`
	PathsChanged        int            `json:"pathsChanged"`
	KustomizeBuilds     int64          `json:"kustomizeBuilds"`
	GitCommands         map[string]int `json:"gitCommands"`
	ManifestBytes       int64          `json:"manifestBytes"`
	GitBytes            int64          `json:"gitBytes"`
	Errors              []string       `json:"errors"`
}

type result struct {
	ArgoCD       string  `json:"argocd"`
	Applications int     `json:"applications"`
	AppSets      int     `json:"applicationSets"`
	Workers      int     `json:"workers"`
	Phases       []phase `json:"phases"`
}

func main() {
	repoDir := flag.String("repo", "", "the git repository the Applications' repoURL stands for")
	appsFile := flag.String("apps", "", "JSON array of Applications")
	appSetsFile := flag.String("appsets", "", "JSON array of ApplicationSets")
	kustomizeBin := flag.String("kustomize", "", "the kustomize binary")
	revisionsFlag := flag.String("revisions", "", "A,B,C: three commit SHAs")
	workers := flag.Int("workers", 20, "Applications compared at once (--status-processors)")
	rootDir := flag.String("root", "", "the repo-server's working folder (default: a temporary folder)")
	flag.Parse()
	log.SetLevel(log.WarnLevel)
	if err := run(*repoDir, *appsFile, *appSetsFile, *kustomizeBin, strings.Split(*revisionsFlag, ","), *workers, *rootDir); err != nil {
		out, _ := json.Marshal(map[string]string{"error": err.Error()})
		fmt.Println(string(out))
		os.Exit(2)
	}
}

func readJSON(file string, into any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}

func run(repoDir, appsFile, appSetsFile, kustomizeBin string, revisions []string, workers int, rootDir string) error {
	if repoDir == "" || appsFile == "" || appSetsFile == "" || kustomizeBin == "" || len(revisions) != 3 {
		return fmt.Errorf("usage: revisioncost --repo DIR --apps FILE --appsets FILE --kustomize BIN --revisions A,B,C")
	}
	var apps []v1alpha1.Application
	var appSets []v1alpha1.ApplicationSet
	if err := readJSON(appsFile, &apps); err != nil {
		return fmt.Errorf("reading %s: %w", appsFile, err)
	}
	if err := readJSON(appSetsFile, &appSets); err != nil {
		return fmt.Errorf("reading %s: %w", appSetsFile, err)
	}
	if rootDir == "" {
		dir, err := os.MkdirTemp("", "revisioncost-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		rootDir = dir
	}
	counter, wrapper, err := countingKustomize(rootDir, kustomizeBin)
	if err != nil {
		return err
	}
	gitLog, err := countingGit(rootDir)
	if err != nil {
		return err
	}
	gitRoot := filepath.Join(rootDir, "repos")
	if err := os.MkdirAll(gitRoot, 0o700); err != nil {
		return err
	}
	// argocd-repo-server's defaults: --repo-cache-expiration 24h, --revision-cache-expiration 3m,
	// --revision-cache-lock-timeout 10s; the in-memory client stands for Redis.
	cache := reposervercache.NewCache(cacheutil.NewCache(cacheutil.NewInMemoryCache(24*time.Hour)), 24*time.Hour, 3*time.Minute, 10*time.Second)
	service := repository.NewService(metrics.NewMetricsServer(), cache, repository.RepoServerInitConstants{
		MaxCombinedDirectoryManifestsSize: resource.MustParse("10M"),
		StreamedManifestMaxExtractedSize:  1 << 30,
		StreamedManifestMaxTarSize:        100 << 20,
		HelmManifestMaxExtractedSize:      1 << 30,
		HelmRegistryMaxIndexSize:          1 << 30,
		OCIManifestMaxExtractedSize:       1 << 30,
	}, git.NoopCredsStore{}, gitRoot)
	if err := service.Init(); err != nil {
		return fmt.Errorf("repo-server init: %w", err)
	}
	repo := &v1alpha1.Repository{Repo: "file://" + repoDir, Type: "git"}
	m := &measurer{service: service, repo: repo, kustomize: &v1alpha1.KustomizeOptions{BinaryPath: wrapper}, counter: counter, gitLog: gitLog, gitRoot: gitRoot, workers: workers}
	res := result{ArgoCD: "v3.2.12", Applications: len(apps), AppSets: len(appSets), Workers: workers}
	res.Phases = append(res.Phases,
		m.phase("cold", revisions[0], "", apps, appSets, true),
		m.phase("commit, manifest-generate-paths honoured", revisions[1], revisions[0], apps, appSets, true),
		m.phase("commit, manifest-generate-paths ignored", revisions[2], revisions[1], apps, appSets, false))
	out, err := json.Marshal(res)
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

// countingKustomize writes a wrapper that counts `kustomize build` runs into a file, then runs the binary.
func countingKustomize(dir, bin string) (string, string, error) {
	counter := filepath.Join(dir, "kustomize-builds")
	wrapper := filepath.Join(dir, "kustomize")
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = build ]; then echo >> %q; fi\nexec %q \"$@\"\n", counter, bin)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		return "", "", err
	}
	return counter, wrapper, os.WriteFile(counter, nil, 0o644)
}

// countingGit puts a `git` first on PATH that logs each command line, then runs the real git (the
// repo-server's git client runs the git CLI by name).
func countingGit(dir string) (string, error) {
	real, err := exec.LookPath("git")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	logFile := filepath.Join(dir, "git-commands")
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\nexec %q \"$@\"\n", logFile, real)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(logFile, nil, 0o644); err != nil {
		return "", err
	}
	return logFile, os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// gitCommands counts the logged git command lines from offset on by subcommand (the first word that is
// neither an option nor the value of -c).
func gitCommands(logFile string, offset int) (map[string]int, int) {
	data, _ := os.ReadFile(logFile)
	out := map[string]int{}
	for _, line := range strings.Split(string(data[min(offset, len(data)):]), "\n") {
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		sub := "?"
		for i := 0; i < len(words); i++ {
			if words[i] == "-c" {
				i++
				continue
			}
			if !strings.HasPrefix(words[i], "-") {
				sub = words[i]
				break
			}
		}
		out[sub]++
	}
	return out, len(data)
}

type measurer struct {
	service   *repository.Service
	repo      *v1alpha1.Repository
	kustomize *v1alpha1.KustomizeOptions
	counter   string
	gitLog    string
	gitRoot   string
	workers   int
}

func (m *measurer) builds() int64 {
	data, _ := os.ReadFile(m.counter)
	return int64(len(data))
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

func cpuSeconds() float64 {
	// children (kustomize, git) and this process together, from getrusage via os/exec's ProcessState is
	// per child; /proc/self/stat covers this process, and cutime/cstime its waited-for children.
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	var total float64
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime (fields 14-17 of proc(5))
		var v float64
		fmt.Sscan(fields[i], &v)
		total += v
	}
	return total / 100 // USER_HZ
}

func (m *measurer) phase(name, revision, synced string, apps []v1alpha1.Application, appSets []v1alpha1.ApplicationSet, honourPaths bool) phase {
	p := phase{Name: name, Revision: revision, Applications: len(apps), Errors: []string{}}
	ctx := context.Background()
	buildsBefore, gitBefore, cpuBefore := m.builds(), dirBytes(m.gitRoot), cpuSeconds()
	_, gitOffset := gitCommands(m.gitLog, 1<<62)
	started := time.Now()
	var mu sync.Mutex
	fail := func(what string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if len(p.Errors) < 20 {
			p.Errors = append(p.Errors, fmt.Sprintf("%s: %v", what, err))
		}
	}
	for _, set := range appSets {
		for _, pattern := range gitFilePatterns(set.Spec.Generators) {
			if _, err := m.service.GetGitFiles(ctx, &apiclient.GitFilesRequest{Repo: m.repo, Revision: revision, Path: pattern}); err != nil {
				fail("GetGitFiles "+set.Name, err)
			}
			p.GitFilesCalls++
		}
	}
	var updates, changed, manifestBytes int64
	queue := make(chan *v1alpha1.Application)
	var wg sync.WaitGroup
	for w := 0; w < m.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for app := range queue {
				source := app.Spec.GetSource()
				rev := revision
				annotation := app.Annotations[v1alpha1.AnnotationKeyManifestGeneratePaths]
				if honourPaths && synced != "" && annotation != "" {
					atomic.AddInt64(&updates, 1)
					r, err := m.service.UpdateRevisionForPaths(ctx, &apiclient.UpdateRevisionForPathsRequest{
						Repo: m.repo, Revision: revision, SyncedRevision: synced, Paths: apppath.GetSourceRefreshPaths(app, source),
						AppLabelKey: appLabelKey, AppName: app.InstanceName("argocd"), ApplicationSource: &source,
						TrackingMethod: string(v1alpha1.TrackingMethodAnnotation),
					})
					if err != nil {
						fail("UpdateRevisionForPaths "+app.Name, err)
						continue
					}
					if r.Changes {
						atomic.AddInt64(&changed, 1)
					}
					if r.Revision != "" {
						rev = r.Revision
					}
				}
				req := &apiclient.ManifestRequest{
					Repo: m.repo, Revision: rev, AppLabelKey: appLabelKey, AppName: app.InstanceName("argocd"), ApplicationSource: &source,
					KustomizeOptions: m.kustomize, TrackingMethod: string(v1alpha1.TrackingMethodAnnotation), ProjectName: app.Spec.Project,
					ProjectSourceRepos: []string{"*"},
				}
				if honourPaths {
					req.AnnotationManifestGeneratePaths = annotation
				}
				resp, err := m.service.GenerateManifest(ctx, req)
				if err != nil {
					fail("GenerateManifest "+app.Name, err)
					continue
				}
				var n int64
				for _, manifest := range resp.Manifests {
					n += int64(len(manifest))
				}
				atomic.AddInt64(&manifestBytes, n)
			}
		}()
	}
	for i := range apps {
		queue <- &apps[i]
	}
	close(queue)
	wg.Wait()
	p.Seconds = time.Since(started).Seconds()
	p.CPUSeconds = cpuSeconds() - cpuBefore
	p.UpdateRevisionCalls, p.PathsChanged = int(updates), int(changed)
	p.KustomizeBuilds = m.builds() - buildsBefore
	p.GitCommands, _ = gitCommands(m.gitLog, gitOffset)
	p.ManifestBytes = manifestBytes
	p.GitBytes = dirBytes(m.gitRoot) - gitBefore
	runtime.GC()
	return p
}

// gitFilePatterns lists the Git files generators' file patterns (nested in matrix generators too).
func gitFilePatterns(generators []v1alpha1.ApplicationSetGenerator) []string {
	var out []string
	for _, g := range generators {
		if g.Git != nil {
			for _, f := range g.Git.Files {
				out = append(out, f.Path)
			}
		}
		if g.Matrix != nil {
			for _, nested := range g.Matrix.Generators {
				if nested.Git != nil {
					for _, f := range nested.Git.Files {
						out = append(out, f.Path)
					}
				}
			}
		}
	}
	return out
}
