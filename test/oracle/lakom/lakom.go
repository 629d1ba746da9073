// The "lakom/validate" op: a Shoot (kyma-fleet's fragment, or a providerConfig plus spec.resources)
// is decoded strictly as the Gardener API server decodes it, and the Lakom extension's own Shoot
// validator (NewShootValidator, what its admission webhook runs) judges it with the scheme of the
// extension's admission binary (client-go, Lakom's API, Gardener's core API) and a
// controller-runtime fake client holding the trusted-keys Secrets. The Secrets a Shoot references
// live in the Garden project and are not in kyma-fleet's output: with standInSecrets, each Secret
// resource without one gets a well-formed stand-in (data key `keys`: one ECDSA P-256 public key made
// at start-up), so references are judged and Secret contents are not.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/gardener/gardener/pkg/apis/core"
	gardencoreinstall "github.com/gardener/gardener/pkg/apis/core/install"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	lakomvalidator "github.com/gardener/gardener-extension-shoot-lakom-service/pkg/admission/validator/lakom"
	apislakom "github.com/gardener/gardener-extension-shoot-lakom-service/pkg/apis/lakom"
	lakomv1alpha1 "github.com/gardener/gardener-extension-shoot-lakom-service/pkg/apis/lakom/v1alpha1"
	"github.com/gardener/gardener-extension-shoot-lakom-service/pkg/constants"
)

const defaultNamespace = "garden-oracle"

var (
	lakomScheme   = newLakomScheme()
	strictDecoder = serializer.NewCodecFactory(lakomScheme, serializer.EnableStrict).UniversalDecoder()
	standInKeys   = newStandInKeys()
)

// newLakomScheme is the scheme of cmd/gardener-extension-shoot-lakom-admission.
func newLakomScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(lakomv1alpha1.AddToScheme(scheme))
	utilruntime.Must(apislakom.AddToScheme(scheme))
	gardencoreinstall.Install(scheme)
	return scheme
}

// newStandInKeys is the `keys` value of a stand-in Secret: one freshly made ECDSA public key.
func newStandInKeys() []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	utilruntime.Must(err)
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	utilruntime.Must(err)
	block := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	entry, err := json.Marshal([]map[string]string{{"name": "oracle-stand-in", "key": string(block)}})
	utilruntime.Must(err)
	return entry
}

type lakomValidateRequest struct {
	Shoot          json.RawMessage   `json:"shoot"`
	ProviderConfig json.RawMessage   `json:"providerConfig"`
	Resources      json.RawMessage   `json:"resources"`
	Secrets        []json.RawMessage `json:"secrets"`
	StandInSecrets bool              `json:"standInSecrets"`
}

func handleLakomValidate(raw []byte) (map[string]any, error) {
	var req lakomValidateRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("malformed request: %w", err)
	}
	doc, err := shootDocument(req.Shoot, req.ProviderConfig, req.Resources)
	if err != nil {
		return nil, err
	}
	shoot := &core.Shoot{}
	if err := runtime.DecodeInto(strictDecoder, doc, shoot); err != nil {
		return refused("shoot-decode", []string{"failed to decode Shoot: " + err.Error()}, nil), nil
	}
	index := -1
	for i, ext := range shoot.Spec.Extensions {
		if ext.Type == constants.ExtensionType {
			index = i
			break
		}
	}
	if index == -1 {
		return map[string]any{"accepted": true, "skipped": "the Shoot has no shoot-lakom-service extension"}, nil
	}
	if d := shoot.Spec.Extensions[index].Disabled; d != nil && *d {
		// Gardener labels the Shoot extensions.extensions.gardener.cloud/shoot-lakom-service=true only
		// for an enabled extension, and the webhook's object selector matches that label.
		return map[string]any{"accepted": true, "skipped": "the shoot-lakom-service extension is disabled: its admission webhook does not run"}, nil
	}
	secrets, err := trustedKeySecrets(req.Secrets, shoot, req.StandInSecrets)
	if err != nil {
		return nil, err
	}
	reader := fake.NewClientBuilder().WithScheme(lakomScheme).WithObjects(secrets...).Build()
	validateErr := lakomvalidator.NewShootValidator(reader, strictDecoder).Validate(context.Background(), shoot, nil)
	if validateErr == nil {
		return map[string]any{"accepted": true, "errors": []string{}, "fieldErrors": []any{}}, nil
	}
	return refused("admission", errorStrings(validateErr), fieldErrors(validateErr)), nil
}

type fieldErrorJSON struct {
	Field    string `json:"field"`
	Type     string `json:"type"`
	BadValue any    `json:"badValue,omitempty"`
	Detail   string `json:"detail"`
	Error    string `json:"error"`
}

func fieldErrors(err error) []fieldErrorJSON {
	out := []fieldErrorJSON{}
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) {
		return out
	}
	for _, e := range agg.Errors() {
		var fe *field.Error
		if errors.As(e, &fe) {
			bad := fe.BadValue
			switch bad.(type) {
			case nil, string, bool, int, int32, int64, float64:
			default:
				bad = fmt.Sprintf("%v", bad)
			}
			out = append(out, fieldErrorJSON{Field: fe.Field, Type: string(fe.Type), BadValue: bad, Detail: fe.Detail, Error: fe.Error()})
		}
	}
	return out
}

// shootDocument returns a v1beta1 Shoot document: the given Shoot (apiVersion, kind, name and
// namespace filled in when missing), or one built from a providerConfig and spec.resources.
func shootDocument(shootJSON, providerConfig, resources json.RawMessage) ([]byte, error) {
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
		spec := map[string]any{"extensions": []any{map[string]any{"type": constants.ExtensionType, "providerConfig": pc}}}
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
		meta["namespace"] = defaultNamespace
	}
	return json.Marshal(doc)
}

// trustedKeySecrets returns the request's Secrets (in the Shoot's namespace unless they name one)
// plus, with standIn, a stand-in for each Secret resource left without one.
func trustedKeySecrets(raws []json.RawMessage, shoot *core.Shoot, standIn bool) ([]client.Object, error) {
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
				Data:       map[string][]byte{"keys": standInKeys},
			})
		}
	}
	return objects, nil
}

func refused(stage string, messages []string, fieldErrs []fieldErrorJSON) map[string]any {
	out := map[string]any{"accepted": false, "refusedBy": stage, "errors": messages}
	if fieldErrs != nil {
		out["fieldErrors"] = fieldErrs
	}
	return out
}

// errorStrings splits an aggregate into its messages as upstream prints each of them.
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
