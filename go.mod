module nodedesk

go 1.26.8

require (
	github.com/coder/websocket v1.8.15
	github.com/creack/pty v1.1.24
	github.com/google/uuid v1.6.0
	github.com/gorilla/mux v1.8.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.etcd.io/bbolt v1.5.0
	golang.org/x/text v0.43.0
)

require golang.org/x/sys v0.45.0 // indirect
