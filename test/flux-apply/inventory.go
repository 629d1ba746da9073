// The Kustomization inventory (status.inventory), re-enacted from kustomize-controller's
// internal/inventory (not importable): entries {id: <ns>_<name>_<group>_<kind>, v: <version>} from the
// apply change set, and the stale objects a prune deletes (in the old inventory, not in the new).
package main

import (
	"sort"

	"github.com/fluxcd/cli-utils/pkg/object"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func inventoryFromChangeSet(set *ssa.ChangeSet) *kustomizev1.ResourceInventory {
	inv := &kustomizev1.ResourceInventory{Entries: []kustomizev1.ResourceRef{}}
	for _, entry := range set.Entries {
		inv.Entries = append(inv.Entries, kustomizev1.ResourceRef{ID: entry.ObjMetadata.String(), Version: entry.GroupVersion})
	}
	return inv
}

func inventoryMetadata(inv *kustomizev1.ResourceInventory) (object.ObjMetadataSet, error) {
	var metas object.ObjMetadataSet
	for _, e := range inv.Entries {
		m, err := object.ParseObjMetadata(e.ID)
		if err != nil {
			return nil, err
		}
		metas = append(metas, m)
	}
	return metas, nil
}

// inventoryDiff returns the objects of inv that target does not hold, as Flux's inventory.Diff.
func inventoryDiff(inv, target *kustomizev1.ResourceInventory) ([]*unstructured.Unstructured, error) {
	versions := make(map[string]string, len(inv.Entries))
	for _, e := range inv.Entries {
		versions[e.ID] = e.Version
	}
	a, err := inventoryMetadata(inv)
	if err != nil {
		return nil, err
	}
	b, err := inventoryMetadata(target)
	if err != nil {
		return nil, err
	}
	objects := []*unstructured.Unstructured{}
	for _, m := range a.Diff(b) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: m.GroupKind.Group, Kind: m.GroupKind.Kind, Version: versions[m.String()]})
		u.SetName(m.Name)
		u.SetNamespace(m.Namespace)
		objects = append(objects, u)
	}
	sort.Sort(ssa.SortableUnstructureds(objects))
	return objects, nil
}

// inventoryMerge re-tracks objects whose prune was not confirmed, as Flux's inventory.Merge.
func inventoryMerge(inv *kustomizev1.ResourceInventory, objects []*unstructured.Unstructured) {
	seen := make(map[string]bool, len(inv.Entries))
	for _, e := range inv.Entries {
		seen[e.ID] = true
	}
	for _, o := range objects {
		id := object.UnstructuredToObjMetadata(o).String()
		if !seen[id] {
			inv.Entries = append(inv.Entries, kustomizev1.ResourceRef{ID: id, Version: o.GroupVersionKind().Version})
			seen[id] = true
		}
	}
}

// pruneSurvivors are the stale objects without a Deleted or Skipped entry in the prune change set.
func pruneSurvivors(objects []*unstructured.Unstructured, set *ssa.ChangeSet) []*unstructured.Unstructured {
	settled := map[string]bool{}
	if set != nil {
		for _, e := range set.Entries {
			if e.Action == ssa.DeletedAction || e.Action == ssa.SkippedAction {
				settled[e.ObjMetadata.String()] = true
			}
		}
	}
	var survivors []*unstructured.Unstructured
	for _, o := range objects {
		if !settled[object.UnstructuredToObjMetadata(o).String()] {
			survivors = append(survivors, o)
		}
	}
	return survivors
}

// referencesToObjMetadataSet turns spec.healthChecks into object metadata, as Flux's
// inventory.ReferenceToObjMetadataSet (an empty apiVersion means apps/v1, for v1beta1 compatibility).
func referencesToObjMetadataSet(refs []meta.NamespacedObjectKindReference) (object.ObjMetadataSet, error) {
	var out object.ObjMetadataSet
	for _, r := range refs {
		apiVersion := r.APIVersion
		if apiVersion == "" {
			apiVersion = "apps/v1"
		}
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gv.WithKind(r.Kind))
		u.SetName(r.Name)
		u.SetNamespace(r.Namespace)
		out = append(out, object.UnstructuredToObjMetadata(u))
	}
	return out, nil
}
