// The "shoot/validate-resources" op: the Shoot fragment decoded strictly as a v1beta1 Shoot, and its
// spec.resources judged by the Gardener API server's own ValidateResources (names required and
// unique, resourceRef apiVersion/kind/name, allowed kinds), as ValidateShootSpec calls it.
package main

import (
	"encoding/json"
	"fmt"

	gardencorevalidation "github.com/gardener/gardener/pkg/api/core/validation"
	"github.com/gardener/gardener/pkg/apis/core"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type shootRequest struct {
	Shoot json.RawMessage `json:"shoot"`
}

func handleShootValidateResources(raw []byte) (map[string]any, error) {
	var req shootRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("malformed request: %w", err)
	}
	if len(req.Shoot) == 0 || string(req.Shoot) == "null" {
		return nil, fmt.Errorf("shoot is missing")
	}
	doc, err := shootDocument(req.Shoot, nil, nil, "")
	if err != nil {
		return nil, err
	}
	shoot := &core.Shoot{}
	if err := runtime.DecodeInto(strictDecoder, doc, shoot); err != nil {
		return refused("shoot-decode", []string{"failed to decode Shoot: " + err.Error()}), nil
	}
	// ValidateShootSpec passes allowWorkloadIdentity=true for Shoots.
	errs := gardencorevalidation.ValidateResources(shoot.Spec.Resources, field.NewPath("spec", "resources"), true)
	if len(errs) > 0 {
		return refused("api-validation", errorStrings(errs.ToAggregate())), nil
	}
	return map[string]any{"accepted": true, "errors": []string{}}, nil
}
