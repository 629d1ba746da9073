// The registry-cache ops: a Shoot (or a bare providerConfig with spec.resources) is decoded as the
// Gardener API server and the extension's admission webhook decode it, strictly, and the extension's
// own Shoot validator (the one its admission webhook runs) judges it, with a controller-runtime fake
// client holding the credential Secrets the Shoot references.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gardener/gardener/pkg/apis/core"
	gardencoreinstall "github.com/gardener/gardener/pkg/apis/core/install"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	cachevalidator "github.com/gardener/gardener-extension-registry-cache/pkg/admission/validator/cache"
	registryapi "github.com/gardener/gardener-extension-registry-cache/pkg/apis/registry"
	registryinstall "github.com/gardener/gardener-extension-registry-cache/pkg/apis/registry/install"
	"github.com/gardener/gardener-extension-registry-cache/pkg/apis/registry/validation"
)

const (
	registryCacheType = "registry-cache"
	defaultNamespace  = "garden-oracle"
	// What a stand-in credential Secret holds: the shape ValidateUpstreamRegistrySecret accepts.
	standInUsername = "oracle"
	standInPassword = "oracle-password"
)

// The scheme of the registry-cache admission process (cmd/gardener-extension-registry-cache-admission):
// Gardener's core API and the registry API. Decoders are strict as in its webhook.go.
var (
	admissionScheme = newAdmissionScheme()
	strictDecoder   = serializer.NewCodecFactory(admissionScheme, serializer.EnableStrict).UniversalDecoder()
)

func newAdmissionScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	gardencoreinstall.Install(scheme)
	registryinstall.Install(scheme)
	return scheme
}

type registryCacheValidateRequest struct {
	Shoot          json.RawMessage   `json:"shoot"`
	OldShoot       json.RawMessage   `json:"oldShoot"`
	ProviderConfig json.RawMessage   `json:"providerConfig"`
	Resources      json.RawMessage   `json:"resources"`
	Namespace      string            `json:"namespace"`
	Secrets        []json.RawMessage `json:"secrets"`
	StandInSecrets bool              `json:"standInSecrets"`
}

func handleRegistryCacheValidate(raw []byte) (map[string]any, error) {
	var req registryCacheValidateRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("malformed request: %w", err)
	}
	shootJSON, err := shootDocument(req.Shoot, req.ProviderConfig, req.Resources, req.Namespace)
	if err != nil {
		return nil, err
	}
	shoot := &core.Shoot{}
	if err := runtime.DecodeInto(strictDecoder, shootJSON, shoot); err != nil {
		return refused("shoot-decode", []string{"failed to decode Shoot: " + err.Error()}), nil
	}
	var oldShoot *core.Shoot
	if len(req.OldShoot) > 0 && string(req.OldShoot) != "null" {
		oldJSON, err := shootDocument(req.OldShoot, nil, nil, shoot.Namespace)
		if err != nil {
			return nil, fmt.Errorf("oldShoot: %w", err)
		}
		oldShoot = &core.Shoot{}
		if err := runtime.DecodeInto(strictDecoder, oldJSON, oldShoot); err != nil {
			return nil, fmt.Errorf("oldShoot does not decode: %w", err)
		}
	}

	index, ext := findExtension(shoot.Spec.Extensions, registryCacheType)
	if index == -1 {
		return map[string]any{"accepted": true, "skipped": "the Shoot has no registry-cache extension"}, nil
	}
	if ext.Disabled != nil && *ext.Disabled {
		// Gardener labels a Shoot extensions.extensions.gardener.cloud/registry-cache=true only for an
		// enabled extension, and the webhook's object selector matches that label.
		return map[string]any{"accepted": true, "skipped": "the registry-cache extension is disabled: its admission webhook does not run"}, nil
	}

	secrets, err := credentialSecrets(req.Secrets, shoot, req.StandInSecrets)
	if err != nil {
		return nil, err
	}
	reader := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(secrets...).Build()
	validator := cachevalidator.NewShootValidator(reader, strictDecoder)

	result := map[string]any{}
	var validateErr error
	if oldShoot != nil {
		validateErr = validator.Validate(context.Background(), shoot, oldShoot)
	} else {
		validateErr = validator.Validate(context.Background(), shoot, nil)
	}
	if validateErr != nil {
		result = refused("admission", errorStrings(validateErr))
	} else {
		result["accepted"] = true
		result["errors"] = []string{}
	}
	path := field.NewPath("spec", "extensions").Index(index).Child("providerConfig")
	if ext.ProviderConfig != nil {
		if fieldErrs, decodeErr := bareFieldErrors(ext.ProviderConfig.Raw, path); decodeErr != nil {
			result["decodeError"] = decodeErr.Error()
		} else {
			result["fieldErrors"] = fieldErrs
		}
	}
	return result, nil
}

type validateConfigRequest struct {
	ProviderConfig json.RawMessage `json:"providerConfig"`
	FieldPath      []any           `json:"fieldPath"`
}

// handleRegistryCacheValidateConfig exposes ValidateRegistryConfig alone, for comparing messages.
func handleRegistryCacheValidateConfig(raw []byte) (map[string]any, error) {
	var req validateConfigRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("malformed request: %w", err)
	}
	if len(req.ProviderConfig) == 0 {
		return nil, errors.New("providerConfig is missing")
	}
	path, err := fieldPathOf(req.FieldPath)
	if err != nil {
		return nil, err
	}
	fieldErrs, decodeErr := bareFieldErrors(req.ProviderConfig, path)
	if decodeErr != nil {
		return map[string]any{"decodeError": "failed to decode providerConfig: " + decodeErr.Error(), "fieldErrors": []any{}}, nil
	}
	return map[string]any{"fieldErrors": fieldErrs}, nil
}

type fieldErrorJSON struct {
	Field    string `json:"field"`
	Type     string `json:"type"`
	BadValue any    `json:"badValue,omitempty"`
	Detail   string `json:"detail"`
	Error    string `json:"error"`
}

func bareFieldErrors(providerConfig []byte, path *field.Path) ([]fieldErrorJSON, error) {
	config := &registryapi.RegistryConfig{}
	if err := runtime.DecodeInto(strictDecoder, providerConfig, config); err != nil {
		return nil, err
	}
	out := []fieldErrorJSON{}
	for _, fe := range validation.ValidateRegistryConfig(config, path) {
		out = append(out, fieldErrorJSON{
			Field: fe.Field, Type: string(fe.Type), BadValue: printableBadValue(fe.BadValue), Detail: fe.Detail, Error: fe.Error(),
		})
	}
	return out, nil
}

func printableBadValue(v any) any {
	switch v.(type) {
	case nil, string, bool, int, int32, int64, float64:
		return v
	default:
		return fmt.Sprintf("%v", v)
	}
}

func fieldPathOf(segments []any) (*field.Path, error) {
	if len(segments) == 0 {
		return field.NewPath("spec", "extensions").Index(0).Child("providerConfig"), nil
	}
	var path *field.Path
	for _, seg := range segments {
		switch s := seg.(type) {
		case string:
			if path == nil {
				path = field.NewPath(s)
			} else {
				path = path.Child(s)
			}
		case float64:
			if path == nil {
				return nil, errors.New("fieldPath must start with a name")
			}
			path = path.Index(int(s))
		default:
			return nil, fmt.Errorf("fieldPath segment %v is neither a name nor an index", seg)
		}
	}
	return path, nil
}

// shootDocument returns a v1beta1 Shoot document: the given Shoot (apiVersion, kind and namespace
// filled in when missing), or one built from a providerConfig and spec.resources.
func shootDocument(shootJSON, providerConfig, resources json.RawMessage, namespace string) ([]byte, error) {
	doc := map[string]any{}
	if len(shootJSON) > 0 && string(shootJSON) != "null" {
		if err := json.Unmarshal(shootJSON, &doc); err != nil {
			return nil, fmt.Errorf("shoot is not a JSON object: %w", err)
		}
	} else {
		if len(providerConfig) == 0 {
			return nil, errors.New("request needs a shoot or a providerConfig")
		}
		var pc any
		if err := json.Unmarshal(providerConfig, &pc); err != nil {
			return nil, fmt.Errorf("providerConfig is not JSON: %w", err)
		}
		spec := map[string]any{"extensions": []any{map[string]any{"type": registryCacheType, "providerConfig": pc}}}
		if len(resources) > 0 && string(resources) != "null" {
			var res any
			if err := json.Unmarshal(resources, &res); err != nil {
				return nil, fmt.Errorf("resources is not JSON: %w", err)
			}
			spec["resources"] = res
		}
		doc["spec"] = spec
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
		if namespace == "" {
			namespace = defaultNamespace
		}
		meta["namespace"] = namespace
	}
	return json.Marshal(doc)
}

// credentialSecrets returns the Secrets of the request, in the Shoot's namespace unless they name
// one, plus, with standIn, a well-formed immutable Secret for each Secret resource left without one.
func credentialSecrets(raws []json.RawMessage, shoot *core.Shoot, standIn bool) ([]client.Object, error) {
	objects := []client.Object{}
	have := map[string]bool{}
	for i, raw := range raws {
		secret := &corev1.Secret{}
		if err := json.Unmarshal(raw, secret); err != nil {
			return nil, fmt.Errorf("secrets[%d] is not a Secret: %w", i, err)
		}
		if secret.Namespace == "" {
			secret.Namespace = shoot.Namespace
		}
		have[secret.Namespace+"/"+secret.Name] = true
		objects = append(objects, secret)
	}
	if standIn {
		for _, res := range shoot.Spec.Resources {
			key := shoot.Namespace + "/" + res.ResourceRef.Name
			if res.ResourceRef.Kind != "Secret" || have[key] {
				continue
			}
			have[key] = true
			objects = append(objects, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: res.ResourceRef.Name, Namespace: shoot.Namespace},
				Immutable:  ptrTo(true),
				Data:       map[string][]byte{"username": []byte(standInUsername), "password": []byte(standInPassword)},
			})
		}
	}
	return objects, nil
}

func findExtension(extensions []core.Extension, extensionType string) (int, core.Extension) {
	for i, ext := range extensions {
		if ext.Type == extensionType {
			return i, ext
		}
	}
	return -1, core.Extension{}
}

func refused(stage string, messages []string) map[string]any {
	return map[string]any{"accepted": false, "refusedBy": stage, "errors": messages}
}

// errorStrings splits an aggregate (a field.ErrorList's ToAggregate) into its messages as upstream
// prints each of them; any other error is one message.
func errorStrings(err error) []string {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		out := []string{}
		for _, e := range agg.Errors() {
			out = append(out, e.Error())
		}
		return out
	}
	return []string{err.Error()}
}

func ptrTo[T any](v T) *T { return &v }
