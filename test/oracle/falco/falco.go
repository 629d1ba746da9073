// The "falco/validate" op: a Shoot (kyma-fleet's fragment) goes through what the Falco extension's
// admission does with it. The Gardener API server decodes the Shoot strictly; the extension's
// mutating webhook (pkg/admission/mutator NewShootMutator) then fills in its defaults (version,
// autoUpdate, rules, destinations) on the v1beta1 Shoot, and its validating webhook
// (pkg/admission/validator NewShootValidator) judges the internal Shoot. Both decode the
// providerConfig strictly with the extension's scheme. The mutator's changes are reported too: the
// renderer writes the defaults itself, so a change means drift in every GitOps diff.
//
// What is not the real thing, and why:
//   - the manager: both constructors take a controller-runtime manager.Manager and call only
//     GetScheme and GetClient; a real manager needs a cluster, so oracleManager answers those two
//     (the scheme of the extension's admission binary, and a fake client that no code path reads
//     with the default options: it serves the Project/Namespace lookups of the restricted modes);
//   - the FalcoProfile: the extension watches the Garden's FalcoProfiles; here the request gives
//     the profile (kyma-fleet's snapshot), loaded into the extension's profile manager with its own
//     GetDummyFalcoProfileManager. With `now`, expiration dates are moved by (wall clock - now), so
//     that the extension, which compares with time.Now(), judges as of the instant kyma-fleet did.
//     Without a profile and with standInProfile, the rendered version stands in as the one supported
//     version, and the response says falcoVersion was not judged.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/gardener/gardener/pkg/apis/core"
	gardencoreinstall "github.com/gardener/gardener/pkg/apis/core/install"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/gardener/gardener-extension-shoot-falco-service/pkg/admission/mutator"
	"github.com/gardener/gardener-extension-shoot-falco-service/pkg/admission/validator"
	profileinstall "github.com/gardener/gardener-extension-shoot-falco-service/pkg/apis/profile/install"
	profilev1alpha1 "github.com/gardener/gardener-extension-shoot-falco-service/pkg/apis/profile/v1alpha1"
	"github.com/gardener/gardener-extension-shoot-falco-service/pkg/apis/service"
	serviceinstall "github.com/gardener/gardener-extension-shoot-falco-service/pkg/apis/service/install"
	servicev1alpha1 "github.com/gardener/gardener-extension-shoot-falco-service/pkg/apis/service/v1alpha1"
	"github.com/gardener/gardener-extension-shoot-falco-service/pkg/constants"
	"github.com/gardener/gardener-extension-shoot-falco-service/pkg/profile"
)

const defaultNamespace = "garden-oracle"

// The scheme of the extension's admission binary (cmd/gardener-extension-admission-shoot-falco-service:
// the manager's client-go scheme, Gardener's core API, the service and profile APIs).
var (
	falcoScheme   = newFalcoScheme()
	strictDecoder = serializer.NewCodecFactory(falcoScheme, serializer.EnableStrict).UniversalDecoder()
)

func newFalcoScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	gardencoreinstall.Install(scheme)
	utilruntime.Must(serviceinstall.AddToScheme(scheme))
	utilruntime.Must(profileinstall.AddToScheme(scheme))
	return scheme
}

// oracleManager is the part of a manager.Manager the two constructors use (see the header); any
// other method would panic on the nil embedded interface, which would show as an op error.
type oracleManager struct {
	manager.Manager
	client client.Client
}

func (m *oracleManager) GetScheme() *runtime.Scheme { return falcoScheme }
func (m *oracleManager) GetClient() client.Client   { return m.client }

func init() {
	// The validator reads RESTRICTED_USAGE over its option; the oracle judges with the flags' defaults.
	_ = os.Unsetenv("RESTRICTED_USAGE")
}

type falcoValidateRequest struct {
	Shoot          json.RawMessage `json:"shoot"`
	FalcoProfile   json.RawMessage `json:"falcoProfile"`
	Now            string          `json:"now"`
	StandInProfile bool            `json:"standInProfile"`
	// The admission binary's flags (default false, as upstream): --otlp-logging.
	OtlpLogging bool `json:"otlpLogging"`
}

func handleFalcoValidate(raw []byte) (map[string]any, error) {
	var req falcoValidateRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("malformed request: %w", err)
	}
	doc, err := shootDocument(req.Shoot)
	if err != nil {
		return nil, err
	}
	internal := &core.Shoot{}
	if err := runtime.DecodeInto(strictDecoder, doc, internal); err != nil {
		return refused("shoot-decode", []string{"failed to decode Shoot: " + err.Error()}), nil
	}
	index, ext := findExtension(internal.Spec.Extensions)
	if index == -1 {
		return map[string]any{"accepted": true, "skipped": "the Shoot has no shoot-falco-service extension"}, nil
	}
	if ext.Disabled != nil && *ext.Disabled {
		return map[string]any{"accepted": true, "skipped": "the shoot-falco-service extension is disabled: its admission webhooks do not run"}, nil
	}

	notes := []string{}
	versions, err := profileVersions(req.FalcoProfile, req.Now)
	if err != nil {
		return nil, err
	}
	if versions == nil {
		if !req.StandInProfile {
			return nil, errors.New("falcoProfile is missing (or ask with standInProfile)")
		}
		versions = map[string]profile.FalcoVersion{}
		if v := renderedVersion(ext); v != "" {
			versions[v] = profile.FalcoVersion{Version: v, Classification: "supported"}
		}
		notes = append(notes, "falcoVersion not judged: no FalcoProfile given, the rendered version stands in as the one supported version")
	}
	empty := map[string]profile.Version{}
	images := map[string]profile.Image{}
	profile.GetDummyFalcoProfileManager(&versions, &images, &empty, &images, &empty, &images)

	mgr := &oracleManager{client: fake.NewClientBuilder().WithScheme(falcoScheme).Build()}
	ctx := context.Background()

	// The mutating webhook receives the v1beta1 Shoot.
	versioned := &gardencorev1beta1.Shoot{}
	if err := json.Unmarshal(doc, versioned); err != nil {
		return nil, fmt.Errorf("shoot does not unmarshal as v1beta1: %w", err)
	}
	if err := mutator.NewShootMutator(mgr, nil).Mutate(ctx, versioned, nil); err != nil {
		result := refused("mutator", errorStrings(err))
		result["notes"] = notes
		return result, nil
	}
	mutatedRaw := versioned.Spec.Extensions[index].ProviderConfig.Raw
	mutations, err := compareConfigs(ext.ProviderConfig, mutatedRaw)
	if err != nil {
		return nil, err
	}

	// The validating webhook receives the internal Shoot, after the mutation.
	mutatedInternal := &core.Shoot{}
	if err := falcoScheme.Convert(versioned, mutatedInternal, nil); err != nil {
		return nil, fmt.Errorf("converting the mutated Shoot: %w", err)
	}
	options := validator.FalcoWebhookOptions{OtlpLogging: req.OtlpLogging}
	validateErr := validator.NewShootValidatorWithOption(mgr, &options, nil).Validate(ctx, mutatedInternal, nil)

	var mutated any
	_ = json.Unmarshal(mutatedRaw, &mutated)
	result := map[string]any{"accepted": true, "errors": []string{}}
	if validateErr != nil {
		result = refused("admission", errorStrings(validateErr))
	}
	result["mutations"] = mutations
	result["mutatedProviderConfig"] = mutated
	result["notes"] = notes
	return result, nil
}

func renderedVersion(ext core.Extension) string {
	if ext.ProviderConfig == nil {
		return ""
	}
	var pc struct {
		FalcoVersion string `json:"falcoVersion"`
	}
	_ = json.Unmarshal(ext.ProviderConfig.Raw, &pc)
	return pc.FalcoVersion
}

// profileVersions loads spec.versions.falco of a FalcoProfile as the extension's profile manager
// does (profile.go rebuild and getExpirationDate: RFC 3339, an unparsable date counts as none).
func profileVersions(raw json.RawMessage, now string) (map[string]profile.FalcoVersion, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	fp := &profilev1alpha1.FalcoProfile{}
	if err := json.Unmarshal(raw, fp); err != nil {
		return nil, fmt.Errorf("falcoProfile is not a FalcoProfile: %w", err)
	}
	var shift time.Duration
	if now != "" {
		at, err := time.Parse(time.RFC3339, now)
		if err != nil {
			return nil, fmt.Errorf("now: %w", err)
		}
		shift = time.Since(at)
	}
	out := map[string]profile.FalcoVersion{}
	for _, v := range fp.Spec.Versions.Falco {
		var expires *time.Time
		if d := v.GetExpirationDate(); d != nil {
			if t, err := time.Parse(time.RFC3339, *d); err == nil {
				t = t.Add(shift)
				expires = &t
			}
		}
		out[v.Version] = profile.FalcoVersion{Classification: v.Classification, ExpirationDate: expires, Version: v.Version, RulesVersion: v.RulesVersion}
	}
	return out, nil
}

// compareConfigs lists where the mutated providerConfig differs from the rendered one, both decoded
// strictly with the extension's codec and encoded back as v1alpha1 JSON (so equal configs written
// differently compare equal). Empty when the mutator changed nothing.
func compareConfigs(rendered *runtime.RawExtension, mutated []byte) ([]string, error) {
	before := map[string]any{}
	if rendered != nil {
		cfg := &service.FalcoServiceConfig{}
		if err := runtime.DecodeInto(strictDecoder, rendered.Raw, cfg); err != nil {
			return nil, fmt.Errorf("the rendered providerConfig does not decode after the mutator accepted it: %w", err)
		}
		normal, err := encodeConfig(cfg)
		if err != nil {
			return nil, err
		}
		before = normal
	}
	after := map[string]any{}
	if err := json.Unmarshal(mutated, &after); err != nil {
		return nil, err
	}
	out := []string{}
	diffJSON("providerConfig", before, after, &out)
	sort.Strings(out)
	return out, nil
}

func encodeConfig(cfg *service.FalcoServiceConfig) (map[string]any, error) {
	codec := serializer.NewCodecFactory(falcoScheme)
	info, _ := runtime.SerializerInfoForMediaType(codec.SupportedMediaTypes(), runtime.ContentTypeJSON)
	var b strings.Builder
	if err := codec.EncoderForVersion(info.Serializer, servicev1alpha1.SchemeGroupVersion).Encode(cfg, &b); err != nil {
		return nil, err
	}
	out := map[string]any{}
	return out, json.Unmarshal([]byte(b.String()), &out)
}

func diffJSON(path string, a, b any, out *[]string) {
	if reflect.DeepEqual(a, b) {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for k := range keys {
			diffJSON(path+"."+k, am[k], bm[k], out)
		}
		return
	}
	*out = append(*out, fmt.Sprintf("%s: rendered %s, mutator %s", path, compact(a), compact(b)))
}

func compact(v any) string {
	if v == nil {
		return "(none)"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func findExtension(extensions []core.Extension) (int, core.Extension) {
	for i, ext := range extensions {
		if ext.Type == constants.ExtensionType {
			return i, ext
		}
	}
	return -1, core.Extension{}
}

// shootDocument returns the Shoot with apiVersion, kind, name and namespace filled in when missing.
func shootDocument(shootJSON json.RawMessage) ([]byte, error) {
	if len(shootJSON) == 0 || string(shootJSON) == "null" {
		return nil, errors.New("shoot is missing")
	}
	doc := map[string]any{}
	if err := json.Unmarshal(shootJSON, &doc); err != nil {
		return nil, fmt.Errorf("shoot is not a JSON object: %w", err)
	}
	if _, ok := doc["apiVersion"]; !ok {
		doc["apiVersion"] = "core.gardener.cloud/v1beta1"
	}
	if _, ok := doc["kind"]; !ok {
		doc["kind"] = "Shoot"
	}
	meta, _ := doc["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		doc["metadata"] = meta
	}
	if _, ok := meta["name"]; !ok {
		meta["name"] = "oracle"
	}
	if _, ok := meta["namespace"]; !ok {
		meta["namespace"] = defaultNamespace
	}
	return json.Marshal(doc)
}

func refused(stage string, messages []string) map[string]any {
	return map[string]any{"accepted": false, "refusedBy": stage, "errors": messages}
}

// errorStrings flattens errors.Join trees (the validator joins one error per check, and the
// resources check joins its own) into their messages as upstream prints each of them.
func errorStrings(err error) []string {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		out := []string{}
		for _, e := range joined.Unwrap() {
			out = append(out, errorStrings(e)...)
		}
		return out
	}
	return []string{err.Error()}
}
