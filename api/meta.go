package api

import (
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]any{"local": true, "version": GNS3Version})
	return nil
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write(openAPI)
	return err
}

// localCompute describes compute "local", this nodedesk itself, with the
// host's CPU and memory use (hostUsage) as the caller read them.
func (s *Server) localCompute(cpu, mem float64) map[string]any {
	name := app.LocalComputeName()
	host, port := s.svc.ConsoleHost(), 3080
	if s.ln != nil {
		port = s.ln.Addr().(*net.TCPAddr).Port
	}
	return map[string]any{
		"capabilities": capabilities(),
		"compute_id":   app.LocalCompute, "connected": true, "cpu_usage_percent": cpu, "host": host,
		"last_error": nil, "memory_usage_percent": mem, "name": name, "port": port, "protocol": "http", "user": nil,
	}
}

// capabilities is what the local compute runs.
func capabilities() map[string]any {
	types := make([]string, 0, len(app.ComputeTypes))
	for _, t := range app.ComputeTypes {
		types = append(types, string(t))
	}
	return map[string]any{"node_types": types, "platform": runtime.GOOS, "version": GNS3Version}
}

// hostUsage reads this machine's CPU load (1-minute load average per core)
// and memory use, in percent with one decimal, from /proc; 0 where it
// cannot be read.
func hostUsage() (cpu, mem float64) {
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if l, err := strconv.ParseFloat(f[0], 64); err == nil {
				cpu = min(100, l*100/float64(runtime.NumCPU()))
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var total, avail float64
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			v, _ := strconv.ParseFloat(f[1], 64)
			switch f[0] {
			case "MemTotal:":
				total = v
			case "MemAvailable:":
				avail = v
			}
		}
		if total > 0 {
			mem = (total - avail) * 100 / total
		}
	}
	// One decimal, as GNS3's psutil gives them: the GNS3 GUI prints the
	// number as it comes ("CPU 27.500000000000004%" otherwise).
	return math.Round(cpu*10) / 10, math.Round(mem*10) / 10
}

func (s *Server) handleVersionCheck(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		Version string `json:"version"`
	}](s, r)
	if err != nil {
		return err
	}
	if in.Version != GNS3Version {
		return app.Errorf(app.ECONFLICT, "Client version %s is not the same as server version %s", in.Version, GNS3Version)
	}
	return s.handleVersion(w, r)
}

func (s *Server) handleCapabilities(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, capabilities())
	return nil
}

func (s *Server) handleComputePorts(w http.ResponseWriter, r *http.Request) error {
	if remote, err := s.forwardComputeGet(w, r, app.ComputeQuery{Emulator: "network", Action: "ports"}); remote || err != nil {
		return err
	}
	return s.handleComputeNetworkPorts(w, r)
}

// handleComputeImages lists the disk images of an emulator other than
// QEMU (whose route, api/emulators.go, comes first): none here.
func (s *Server) handleComputeImages(w http.ResponseWriter, r *http.Request) error {
	if remote, err := s.forwardComputeGet(w, r, app.ComputeQuery{Emulator: mux.Vars(r)["emulator"], Action: "images"}); remote || err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, []any{})
	return nil
}

// handleEmptyList and handleEmptyObject answer the start-up calls of the
// GNS3 web UI for features nodedesk does not have (appliances, settings,
// statistics), so that it starts.
func (s *Server) handleEmptyList(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, []any{})
	return nil
}

func (s *Server) handleEmptyObject(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]any{})
	return nil
}

// handleGNS3VM answers the GNS3 VM settings. nodedesk has no GNS3 VM: the
// answer is GNS3's defaults, the VM disabled, so that clients' preferences
// open.
func (s *Server) handleGNS3VM(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]any{"vmname": nil, "when_exit": "stop", "headless": false, "enable": false,
		"engine": "vmware", "allocate_vcpus_ram": true, "ram": 2048, "vcpus": 1, "port": 80})
	return nil
}

// gns3VMEngine is one engine that can run the GNS3 VM, as GNS3 lists it.
type gns3VMEngine struct {
	EngineID        string `json:"engine_id"`
	Name            string `json:"name"`
	Description     string `json:"description"`
	SupportWhenExit bool   `json:"support_when_exit"`
	SupportHeadless bool   `json:"support_headless"`
	SupportRAM      bool   `json:"support_ram"`
}

// gns3VMEngines lists the engines GNS3 lists on this platform (Hyper-V only
// on Windows), with what each supports. nodedesk runs none of them, and
// each description says so.
func gns3VMEngines() []gns3VMEngine {
	const none = " nodedesk has no GNS3 VM: its nodes run on this machine, so this setting is not used."
	vmware := "VMware Workstation / Player"
	if runtime.GOOS == "darwin" {
		vmware = "VMware Fusion"
	}
	engines := []gns3VMEngine{
		{EngineID: "vmware", Name: vmware, Description: "Runs the GNS3 VM in " + vmware + "." + none,
			SupportWhenExit: true, SupportHeadless: true, SupportRAM: true},
		{EngineID: "virtualbox", Name: "VirtualBox", Description: "Runs the GNS3 VM in VirtualBox." + none,
			SupportWhenExit: true, SupportHeadless: true, SupportRAM: true},
		{EngineID: "remote", Name: "Remote", Description: "Uses another GNS3 server as the GNS3 VM." + none},
	}
	if runtime.GOOS == "windows" {
		engines = append(engines, gns3VMEngine{EngineID: "hyper-v", Name: "Hyper-V",
			Description: "Runs the GNS3 VM in Hyper-V." + none, SupportWhenExit: true, SupportRAM: true})
	}
	return engines
}

// handleGNS3VMEngines lists the engines, so that the GNS3 desktop GUI's
// GNS3 VM preferences open.
func (s *Server) handleGNS3VMEngines(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, gns3VMEngines())
	return nil
}

// handleGNS3VMEngineVMs lists the virtual machines an engine offers as the
// GNS3 VM: none, since nodedesk uses no GNS3 VM (GNS3 too answers an empty
// list while its VM is disabled). An engine the list does not name is 404.
func (s *Server) handleGNS3VMEngineVMs(w http.ResponseWriter, r *http.Request) error {
	engine := mux.Vars(r)["engine"]
	for _, e := range gns3VMEngines() {
		if e.EngineID == engine {
			writeJSON(w, http.StatusOK, []any{})
			return nil
		}
	}
	return app.Errorf(app.ENOTFOUND, "GNS3 VM engine %q doesn't exist; GET /v2/gns3vm/engines lists them", engine)
}

// handleLeftovers answers what this nodedesk found at start of a previous
// one that did not shut down (app.Service.Leftovers).
func (s *Server) handleLeftovers(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.svc.Leftovers())
	return nil
}

// handleLeftoversDismiss forgets it: the user has read it.
func (s *Server) handleLeftoversDismiss(w http.ResponseWriter, r *http.Request) error {
	s.svc.DismissLeftovers()
	noContent(w)
	return nil
}
