// Package api is nodedesk's REST door: the GNS3-compatible /v2 HTTP API on
// gorilla/mux. Handlers parse a request, call one app.Service method and
// render the answer; they hold no rules. The contract — every body's
// fields, types, enums and required keys — is openapi.json, embedded here,
// served at /v2/openapi.json and used to check every request body before
// anything is written.
//
// api imports app and never store; only main wires them together.
package api
