// The registry-cache codec of KIM's own dependency graph, used to compare KIM's providerConfig with
// kyma-fleet's after strict decoding (semantic equality, as the extension compares old and new).
package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	registryinstall "github.com/gardener/gardener-extension-registry-cache/pkg/apis/registry/install"
)

const registryCacheType = "registry-cache"

var strictDecoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	registryinstall.Install(scheme)
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDecoder()
}()
