// The "kim/registry-cache" op: KIM's own Shoot patch code (the extensions extender for a patch and the
// resources extender) turns a Runtime CR's spec.imageRegistryCache into the Shoot's registry-cache
// entry and spec.resources; optionally the result is compared with kyma-fleet's rendered Shoot
// fragment, up to KIM's credential Secret names (the rule is in docs/testing.md and below).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	gardener "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	imv1 "github.com/kyma-project/infrastructure-manager/api/v1"
	kimextender "github.com/kyma-project/infrastructure-manager/pkg/gardener/shoot/extender"
	"github.com/kyma-project/infrastructure-manager/pkg/gardener/shoot/extender/auditlogs"
	kimextensions "github.com/kyma-project/infrastructure-manager/pkg/gardener/shoot/extender/extensions"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"

	registryapi "github.com/gardener/gardener-extension-registry-cache/pkg/apis/registry"
)

type kimRequest struct {
	Runtime      json.RawMessage `json:"runtime"`
	CurrentShoot json.RawMessage `json:"currentShoot"`
	Rendered     json.RawMessage `json:"rendered"`
}

func handleKIMRegistryCache(raw []byte) (map[string]any, error) {
	var req kimRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("malformed request: %w", err)
	}
	if len(req.Runtime) == 0 || string(req.Runtime) == "null" {
		return nil, fmt.Errorf("runtime is missing")
	}
	rt := imv1.Runtime{}
	if err := strictJSON(req.Runtime, &rt); err != nil {
		// KIM's own types refuse the Runtime fragment: the API server's CRD schema aside, KIM
		// could not read it either. That is a verdict, not a request error.
		return map[string]any{"accepted": false, "errors": []string{"failed to decode Runtime with KIM's types: " + err.Error()}}, nil
	}

	var rendered *gardener.Shoot
	if len(req.Rendered) > 0 && string(req.Rendered) != "null" {
		rendered = &gardener.Shoot{}
		if err := strictJSON(req.Rendered, rendered); err != nil {
			return nil, fmt.Errorf("rendered is not a v1beta1 Shoot: %w", err)
		}
	}
	current := gardener.Shoot{}
	switch {
	case len(req.CurrentShoot) > 0 && string(req.CurrentShoot) != "null":
		if err := strictJSON(req.CurrentShoot, &current); err != nil {
			return nil, fmt.Errorf("currentShoot is not a v1beta1 Shoot: %w", err)
		}
	case rendered != nil:
		current = shootBeforeKIM(rendered)
	}

	patched, err := kimPatch(rt, current)
	if err != nil {
		return map[string]any{"accepted": false, "errors": []string{"KIM's patch failed: " + err.Error()}}, nil
	}
	kimExt := registryCacheEntry(patched.Spec.Extensions)
	result := map[string]any{
		"accepted":    true,
		"extension":   extensionJSON(kimExt),
		"resources":   patched.Spec.Resources,
		"secretNames": kimSecretNames(rt, kimExt),
	}
	if rendered != nil {
		result["comparison"] = compareWithRendered(rt, kimExt, patched.Spec.Resources, rendered)
	}
	return result, nil
}

// kimPatch runs KIM's patch-path extenders for registry-cache on a Shoot that starts as `current`. A
// panic in KIM's code is its verdict too (returned as the error), not a crash of the oracle.
func kimPatch(rt imv1.Runtime, current gardener.Shoot) (shoot gardener.Shoot, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in KIM's code: %v", r)
		}
	}()
	shoot = gardener.Shoot{ObjectMeta: current.ObjectMeta}
	extendExtensions := kimextensions.NewExtensionsExtenderForPatch(auditlogs.AuditLogData{}, current.Spec.Extensions)
	if err := extendExtensions(rt, &shoot); err != nil {
		return shoot, err
	}
	extendResources := kimextender.NewResourcesExtenderForPatch(current.Spec.Resources)
	if err := extendResources(rt, &shoot); err != nil {
		return shoot, err
	}
	return shoot, nil
}

// shootBeforeKIM is the rendered Shoot fragment without its registry-cache entry and without the
// credential resources that entry references: the Shoot as KIM finds it when it alone owns the
// registry-cache entry (what KIM writes then depends on the Runtime CR only). Other entries and
// resources stay, so KIM's handling of them (keep, or drop names containing "reg-cache-") is judged.
func shootBeforeKIM(rendered *gardener.Shoot) gardener.Shoot {
	current := *rendered.DeepCopy()
	referenced := map[string]bool{}
	if ext := registryCacheEntry(rendered.Spec.Extensions); ext != nil {
		for _, name := range providerConfigSecretNames(ext) {
			referenced[name] = true
		}
	}
	others := []gardener.Extension{}
	for _, ext := range current.Spec.Extensions {
		if ext.Type != registryCacheType {
			others = append(others, ext)
		}
	}
	current.Spec.Extensions = others
	kept := []gardener.NamedResourceReference{}
	for _, res := range current.Spec.Resources {
		if !referenced[res.Name] {
			kept = append(kept, res)
		}
	}
	current.Spec.Resources = kept
	return current
}

func registryCacheEntry(extensions []gardener.Extension) *gardener.Extension {
	for i := range extensions {
		if extensions[i].Type == registryCacheType {
			return &extensions[i]
		}
	}
	return nil
}

func isEnabled(ext *gardener.Extension) bool {
	return ext != nil && (ext.Disabled == nil || !*ext.Disabled)
}

func extensionJSON(ext *gardener.Extension) any {
	if ext == nil {
		return nil
	}
	out := map[string]any{"type": ext.Type}
	if ext.Disabled != nil {
		out["disabled"] = *ext.Disabled
	}
	if ext.ProviderConfig != nil {
		var pc any
		if err := json.Unmarshal(ext.ProviderConfig.Raw, &pc); err == nil {
			out["providerConfig"] = pc
		} else {
			out["providerConfig"] = string(ext.ProviderConfig.Raw)
		}
	}
	return out
}

type plainCache struct {
	Upstream            string  `json:"upstream"`
	SecretReferenceName *string `json:"secretReferenceName"`
}

func providerConfigCaches(ext *gardener.Extension) []plainCache {
	if ext == nil || ext.ProviderConfig == nil {
		return nil
	}
	var pc struct {
		Caches []plainCache `json:"caches"`
	}
	_ = json.Unmarshal(ext.ProviderConfig.Raw, &pc)
	return pc.Caches
}

func providerConfigSecretNames(ext *gardener.Extension) []string {
	names := []string{}
	for _, c := range providerConfigCaches(ext) {
		if c.SecretReferenceName != nil {
			names = append(names, *c.SecretReferenceName)
		}
	}
	return names
}

// kimSecretNames maps each cache uid of the Runtime to the Garden Secret name KIM references for it.
func kimSecretNames(rt imv1.Runtime, kimExt *gardener.Extension) map[string]string {
	byUpstream := map[string]string{}
	for _, c := range providerConfigCaches(kimExt) {
		if c.SecretReferenceName != nil {
			byUpstream[c.Upstream] = *c.SecretReferenceName
		}
	}
	names := map[string]string{}
	for _, item := range rt.Spec.Caching {
		if name, ok := byUpstream[item.Config.Upstream]; ok {
			names[item.UID] = name
		}
	}
	return names
}

// compareWithRendered applies the name rule and compares KIM's entry and resources with the rendered
// ones. The rule: for every Runtime item with a secretReferenceName S, KIM references a Garden Secret
// of its own (its copy of the runtime's Secret S, found through the item's uid); kyma-fleet must
// reference S itself for the cache of the same upstream in garden/. KIM's names are replaced by the
// corresponding rendered names in KIM's entry and resources (caches sharing S then share one name, as
// KIM's copies of S are equal), and then both must be equal:
// providerConfigs equal after strict decoding with the extension's codec (semantic equality, as the
// extension's validator compares old and new configs), and spec.resources equal as sets.
func compareWithRendered(rt imv1.Runtime, kimExt *gardener.Extension, kimResources []gardener.NamedResourceReference, rendered *gardener.Shoot) map[string]any {
	differences := []string{}
	textDifferences := []string{}
	renderedExt := registryCacheEntry(rendered.Spec.Extensions)

	renderedByUpstream := map[string]plainCache{}
	for _, c := range providerConfigCaches(renderedExt) {
		renderedByUpstream[c.Upstream] = c
	}
	nameMap := map[string]string{}
	for uid, kimName := range kimSecretNames(rt, kimExt) {
		var item *imv1.ImageRegistryCache
		for i := range rt.Spec.Caching {
			if rt.Spec.Caching[i].UID == uid {
				item = &rt.Spec.Caching[i]
			}
		}
		upstream := item.Config.Upstream
		rc, ok := renderedByUpstream[upstream]
		if !ok || rc.SecretReferenceName == nil {
			differences = append(differences, fmt.Sprintf("cache %q: KIM references Secret %q, kyma-fleet renders no secretReferenceName", upstream, kimName))
			continue
		}
		// KIM's Secret is its copy of the runtime's Secret the Runtime item names; kyma-fleet must
		// reference that same Secret by its own name.
		if source := item.Config.SecretReferenceName; source == nil || *source != *rc.SecretReferenceName {
			differences = append(differences, fmt.Sprintf("cache %q: kyma-fleet references Secret %q, but KIM's %q is a copy of the runtime's Secret %q", upstream, *rc.SecretReferenceName, kimName, deref(source)))
			continue
		}
		nameMap[kimName] = *rc.SecretReferenceName
	}

	switch {
	case !isEnabled(kimExt) && !isEnabled(renderedExt):
		// Both leave the extension off (absent, or disabled: true); nothing more to compare.
	case isEnabled(kimExt) != isEnabled(renderedExt):
		differences = append(differences, fmt.Sprintf("registry-cache enabled: KIM %v, kyma-fleet %v", isEnabled(kimExt), isEnabled(renderedExt)))
	default:
		kimRenamed, err := renameSecrets(kimExt.ProviderConfig.Raw, nameMap)
		if err != nil {
			differences = append(differences, "KIM's providerConfig: "+err.Error())
			break
		}
		kimConfig, renderedConfig := &registryapi.RegistryConfig{}, &registryapi.RegistryConfig{}
		if err := runtime.DecodeInto(strictDecoder, kimRenamed, kimConfig); err != nil {
			differences = append(differences, "KIM's providerConfig does not decode strictly: "+err.Error())
			break
		}
		if renderedExt.ProviderConfig == nil {
			differences = append(differences, "kyma-fleet's registry-cache entry has no providerConfig")
			break
		}
		if err := runtime.DecodeInto(strictDecoder, renderedExt.ProviderConfig.Raw, renderedConfig); err != nil {
			differences = append(differences, "kyma-fleet's providerConfig does not decode strictly: "+err.Error())
			break
		}
		if !equality.Semantic.DeepEqual(kimConfig, renderedConfig) {
			differences = append(differences, jsonDifferences("providerConfig (decoded)", mustGeneric(versioned(kimConfig)), mustGeneric(versioned(renderedConfig)))...)
		}
		textDifferences = jsonDifferences("providerConfig (as written)", genericOf(kimRenamed), genericOf(renderedExt.ProviderConfig.Raw))
	}

	kimSet := resourceSet(kimResources, nameMap)
	renderedSet := resourceSet(rendered.Spec.Resources, nil)
	for key := range kimSet {
		if !renderedSet[key] {
			differences = append(differences, "spec.resources: KIM writes "+key+", kyma-fleet does not")
		}
	}
	for key := range renderedSet {
		if !kimSet[key] {
			differences = append(differences, "spec.resources: kyma-fleet writes "+key+", KIM does not (KIM drops every resource whose name contains \"reg-cache-\")")
		}
	}
	sort.Strings(differences)
	if textDifferences == nil {
		textDifferences = []string{}
	}
	return map[string]any{
		"equal":           len(differences) == 0,
		"differences":     differences,
		"textDifferences": textDifferences,
		"nameMap":         nameMap,
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func renameSecrets(raw []byte, nameMap map[string]string) ([]byte, error) {
	doc := map[string]any{}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if caches, ok := doc["caches"].([]any); ok {
		for _, c := range caches {
			if cache, ok := c.(map[string]any); ok {
				if name, ok := cache["secretReferenceName"].(string); ok {
					if renamed, ok := nameMap[name]; ok {
						cache["secretReferenceName"] = renamed
					}
				}
			}
		}
	}
	return json.Marshal(doc)
}

func resourceSet(resources []gardener.NamedResourceReference, nameMap map[string]string) map[string]bool {
	set := map[string]bool{}
	rename := func(n string) string {
		if r, ok := nameMap[n]; ok {
			return r
		}
		return n
	}
	for _, r := range resources {
		set[fmt.Sprintf("{name: %s, resourceRef: {apiVersion: %s, kind: %s, name: %s}}", rename(r.Name), r.ResourceRef.APIVersion, r.ResourceRef.Kind, rename(r.ResourceRef.Name))] = true
	}
	return set
}

func mustGeneric(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return genericOf(b)
}

func genericOf(b []byte) any {
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return string(b)
	}
	return out
}

// jsonDifferences lists the paths at which two JSON values differ, with both values.
func jsonDifferences(path string, kim, rendered any) []string {
	if reflect.DeepEqual(kim, rendered) {
		return nil
	}
	km, kOK := kim.(map[string]any)
	rm, rOK := rendered.(map[string]any)
	if kOK && rOK {
		keys := map[string]bool{}
		for k := range km {
			keys[k] = true
		}
		for k := range rm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		out := []string{}
		for _, k := range sorted {
			out = append(out, jsonDifferences(path+"."+k, km[k], rm[k])...)
		}
		return out
	}
	ka, kOK := kim.([]any)
	ra, rOK := rendered.([]any)
	if kOK && rOK && len(ka) == len(ra) {
		out := []string{}
		for i := range ka {
			out = append(out, jsonDifferences(fmt.Sprintf("%s[%d]", path, i), ka[i], ra[i])...)
		}
		return out
	}
	return []string{fmt.Sprintf("%s: KIM %s, kyma-fleet %s", path, compactJSON(kim), compactJSON(rendered))}
}

func compactJSON(v any) string {
	if v == nil {
		return "(absent)"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(buf.String())
}

func strictJSON(raw []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}
