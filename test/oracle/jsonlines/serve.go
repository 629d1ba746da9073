// Package jsonlines is the request loop of the oracle programs (test/oracle/admission and
// test/oracle/kim): one JSON request object per line on stdin, exactly one JSON response object per
// request line on stdout, in order, flushed after each line. Every response echoes the request's "id"
// (any JSON value) and "op". A request that cannot be served (not JSON, unknown op, malformed fields,
// an op whose upstream module is not available) is answered {"id":…,"op":…,"error":"…"} and the loop
// goes on; a panic in a handler becomes such an error too. Serve returns when stdin closes.
package jsonlines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// SourceHash is stamped at build time (-ldflags -X) with the hash of this package's sources, which
// are outside the programs' module folders and so must reach the tool cache key another way.
var SourceHash = "unstamped"

// Handler serves one op; raw is the whole request line. Its result's keys are merged into the response.
type Handler func(raw []byte) (map[string]any, error)

type request struct {
	ID json.RawMessage `json:"id,omitempty"`
	Op string          `json:"op"`
}

// Serve answers request lines from in on out until in closes.
func Serve(in io.Reader, out io.Writer, handlers map[string]Handler) error {
	reader := bufio.NewReaderSize(in, 1<<20)
	writer := bufio.NewWriter(out)
	encoder := json.NewEncoder(writer)
	encoder.SetEscapeHTML(false)
	for {
		line, readErr := reader.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if err := encoder.Encode(answer(line, handlers)); err != nil {
				return err
			}
			if err := writer.Flush(); err != nil {
				return err
			}
		}
		if readErr == io.EOF {
			return nil
		}
		if readErr != nil {
			return readErr
		}
	}
}

func answer(line []byte, handlers map[string]Handler) (response map[string]any) {
	var req request
	response = map[string]any{}
	defer func() {
		if r := recover(); r != nil {
			response = map[string]any{"op": req.Op, "error": fmt.Sprintf("internal error: %v", r)}
			setID(response, req.ID)
		}
	}()
	if err := json.Unmarshal(line, &req); err != nil {
		response["error"] = "request is not a JSON object: " + err.Error()
		return response
	}
	response["op"] = req.Op
	setID(response, req.ID)
	handler, ok := handlers[req.Op]
	if !ok {
		response["error"] = fmt.Sprintf("unknown op %q", req.Op)
		return response
	}
	result, err := handler(line)
	if err != nil {
		response["error"] = err.Error()
		return response
	}
	for k, v := range result {
		response[k] = v
	}
	return response
}

func setID(response map[string]any, id json.RawMessage) {
	if len(id) > 0 {
		response["id"] = id
	}
}

// Versions is the "versions" op: the upstream modules (Gardener, Kyma, Kubernetes) compiled into
// the running binary, with the Go version, from its build information.
func Versions(_ []byte) (map[string]any, error) {
	versions := map[string]string{}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.HasPrefix(dep.Path, "github.com/gardener/") || strings.HasPrefix(dep.Path, "github.com/kyma-project/") ||
				dep.Path == "k8s.io/apimachinery" || dep.Path == "sigs.k8s.io/controller-runtime" {
				versions[dep.Path] = dep.Version
			}
		}
		versions["go"] = info.GoVersion
	}
	versions["kyma-fleet.dev/oracle/jsonlines"] = SourceHash
	return map[string]any{"versions": versions}, nil
}
