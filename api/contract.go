package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"nodedesk/app"
)

// openAPI is the contract of the API: OpenAPI 3.1, JSON Schema 2020-12.
//
//go:embed openapi.json
var openAPI []byte

const contractURL = "openapi.json"

// printer renders schema errors in English.
var printer = message.NewPrinter(language.English)

// contract holds the compiled schemas of openapi.json.
type contract struct {
	doc map[string]any
	// schemas holds every component schema, compiled once at load: a
	// jsonschema.Compiler is not safe for concurrent use, a Schema is.
	schemas map[string]*jsonschema.Schema
	// requests maps "METHOD /path/template" to the schema of its body.
	requests map[string]*jsonschema.Schema
	// properties maps a node type to the schema of its controller
	// "properties" object (generic types have none: free-form).
	properties map[app.NodeType]*jsonschema.Schema
}

func loadContract() (*contract, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPI))
	if err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(contractURL, doc); err != nil {
		return nil, err
	}
	ct := &contract{doc: doc.(map[string]any), schemas: map[string]*jsonschema.Schema{},
		requests: map[string]*jsonschema.Schema{}, properties: map[app.NodeType]*jsonschema.Schema{}}
	components, _ := ct.doc["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	for name := range schemas {
		if ct.schemas[name], err = c.Compile(contractURL + "#/components/schemas/" + name); err != nil {
			return nil, fmt.Errorf("openapi.json: schema %s: %w", name, err)
		}
	}
	// A component that checks a node type's controller "properties" names
	// that type in x-node-type.
	for name, sch := range schemas {
		if t, ok := sch.(map[string]any)["x-node-type"].(string); ok {
			if !app.NodeType(t).Valid() {
				return nil, fmt.Errorf("openapi.json: schema %s: x-node-type %q is not a node type", name, t)
			}
			ct.properties[app.NodeType(t)] = ct.schemas[name]
		}
	}
	return ct, nil
}

// component returns the compiled #/components/schemas/<name>.
func (c *contract) component(name string) (*jsonschema.Schema, error) {
	sch, ok := c.schemas[name]
	if !ok {
		return nil, fmt.Errorf("openapi.json has no schema %s", name)
	}
	return sch, nil
}

// operation returns the operation object of a method and path template,
// or nil if the contract has none.
func (c *contract) operation(method, path string) map[string]any {
	paths, _ := c.doc["paths"].(map[string]any)
	item, _ := paths[path].(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	return op
}

// schemaRef follows content.application/json.schema.$ref of a request body
// or response object and returns the component name.
func schemaRef(obj map[string]any) string {
	content, _ := obj["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	schema, _ := media["schema"].(map[string]any)
	ref, _ := schema["$ref"].(string)
	return strings.TrimPrefix(ref, "#/components/schemas/")
}

// register records that the router serves method+path. It fails if the
// contract does not describe the operation, so the two cannot drift; it
// compiles the operation's request body schema, if any.
func (c *contract) register(method, path string) error {
	op := c.operation(method, path)
	if op == nil {
		return fmt.Errorf("openapi.json has no operation %s %s", method, path)
	}
	body, _ := op["requestBody"].(map[string]any)
	if body == nil {
		return nil
	}
	name := schemaRef(body)
	if name == "" {
		return nil
	}
	sch, err := c.component(name)
	if err != nil {
		return err
	}
	c.requests[method+" "+path] = sch
	return nil
}

// validate checks a decoded JSON value against sch and turns a failure into
// an EINVALID error that says which fields are wrong and why; its Field is
// the first wrong field's path, under prefix (the path of v in the body).
func validate(sch *jsonschema.Schema, v any, what, prefix string) error {
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return app.Invalid(prefix, "Invalid %s: %v", what, err)
	}
	var msgs, fields []string
	collectLeaves(ve, &msgs, &fields)
	if len(msgs) > 3 {
		msgs = append(msgs[:3], fmt.Sprintf("and %d more", len(msgs)-3))
	}
	field := prefix
	if len(fields) > 0 && fields[0] != "" {
		field = strings.TrimPrefix(prefix+"."+fields[0], ".")
	}
	return app.Invalid(field, "Invalid %s: %s", what, strings.Join(msgs, "; "))
}

// collectLeaves gathers the innermost causes of a validation error as
// "field: reason" sentences, without repeats, and their field paths.
func collectLeaves(e *jsonschema.ValidationError, out, fields *[]string) {
	if len(e.Causes) == 0 {
		where := "body"
		if len(e.InstanceLocation) > 0 {
			where = strings.Join(e.InstanceLocation, ".")
		}
		msg := where + ": " + e.ErrorKind.LocalizedString(printer)
		if _, isFalse := e.ErrorKind.(*kind.FalseSchema); isFalse {
			msg = where + ": not allowed"
		}
		for _, m := range *out {
			if m == msg {
				return
			}
		}
		*out = append(*out, msg)
		loc := e.InstanceLocation
		if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok && len(ap.Properties) > 0 {
			loc = append(slices.Clone(loc), ap.Properties[0]) // the field at fault is the unknown key
		}
		*fields = append(*fields, strings.Join(loc, "."))
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out, fields)
	}
}

// decodeJSON parses one JSON value, keeping numbers exact, and refuses
// trailing data.
func decodeJSON(raw []byte) (any, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, app.Errorf(app.EINVALID, "Invalid JSON at byte %d: %v", se.Offset, err)
		}
		return nil, app.Errorf(app.EINVALID, "Invalid JSON: %v", err)
	}
	return v, nil
}
