// The registry-cache codec of KIM's own dependency graph, used to compare KIM's providerConfig with
// kyma-fleet's after strict decoding (semantic equality, as the extension compares old and new).
package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	registryinstall "github.com/gardener/gardener-extension-registry-cache/pkg/apis/registry/install"
	registryv1alpha3 "github.com/gardener/gardener-extension-registry-cache/pkg/apis/registry/v1alpha3"
)

const registryCacheType = "registry-cache"

var (
	registryScheme = func() *runtime.Scheme {
		scheme := runtime.NewScheme()
		registryinstall.Install(scheme)
		return scheme
	}()
	strictDecoder = serializer.NewCodecFactory(registryScheme, serializer.EnableStrict).UniversalDecoder()
)

// versioned converts a decoded (internal) config back to v1alpha3, whose JSON names the fields as
// users write them, for reporting differences.
func versioned(internal runtime.Object) any {
	out := &registryv1alpha3.RegistryConfig{}
	if err := registryScheme.Convert(internal, out, nil); err != nil {
		return internal
	}
	return out
}
