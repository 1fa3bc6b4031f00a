package app

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// The matrix check and "check connectivity" (decision 0070): every host
// pings every other. The sources run side by side, one goroutine each,
// and each pings its targets one after the other, so a 20-host lab's 380
// pairs take about 19 pings' time.

// matrixHost is a host of a matrix: its node, the address it is pinged
// at, and its driver (nil: why says why it cannot ping).
type matrixHost struct {
	n    *Node
	addr string
	drv  HostDriver
	why  string
}

// matrixHosts are the hosts of a matrix check: those named, or every
// running end host with a known address. left names the hosts left out.
func (e *checkEval) matrixHosts(ctx context.Context, l *lab, c Check) (hosts []matrixHost, left []string, err string) {
	if len(c.Hosts) > 0 {
		for _, name := range c.Hosts {
			n, drv, why := e.driver(l, name)
			if n == nil {
				return nil, nil, why
			}
			h := matrixHost{n: n, drv: drv, why: why, addr: e.addressOf(ctx, n)}
			hosts = append(hosts, h)
		}
		return hosts, nil, ""
	}
	// Every end host: those the configs give an address, then those the
	// wire showed use one (a host whose runner drives it, when the
	// configs say nothing of it).
	addr := map[string]string{}
	known := map[string]bool{} // nodes the configs speak of
	for _, a := range e.addrs {
		known[a.NodeID] = true
		if ip, ok := addressOnly(a.Address); ok && a.EndHost && addr[a.NodeID] == "" {
			addr[a.NodeID] = ip
		}
	}
	endHost := map[string]bool{}
	for _, a := range e.addrs {
		if a.EndHost {
			endHost[a.NodeID] = true
		}
	}
	if m := e.wireMap(ctx); m != nil {
		for _, lk := range m.Links {
			for _, h := range lk.Hosts {
				n := l.byID[h.NodeID]
				if n == nil || n.Status != Started || addr[n.ID] != "" {
					continue
				}
				if _, drives := e.s.runner(n.Type).(HostDriver); !endHost[n.ID] && (known[n.ID] || !drives) {
					continue
				}
				for _, a := range h.IPv4 {
					if ip, ok := addressOnly(a); ok {
						addr[n.ID] = ip
						break
					}
				}
			}
		}
	}
	for _, n := range l.nodes { // in the project's order
		if addr[n.ID] == "" {
			continue
		}
		if n.Status != Started {
			left = append(left, n.Name)
			continue
		}
		n, drv, why := e.driver(l, n.Name)
		hosts = append(hosts, matrixHost{n: n, drv: drv, why: why, addr: addr[n.ID]})
	}
	return hosts, left, ""
}

func (e *checkEval) matrix(ctx context.Context, l *lab, c Check) CheckResult {
	hosts, left, bad := e.matrixHosts(ctx, l, c)
	if bad != "" {
		return verdict(VerdictError, "%s", bad)
	}
	leftOut := ""
	if len(left) > 0 {
		leftOut = fmt.Sprintf(" (left out, not running: %s)", strings.Join(left, ", "))
	}
	if len(hosts) < 2 {
		return verdict(VerdictError, "nodedesk knows fewer than two running hosts with an address%s: start the lab's hosts and give them addresses (in their configuration, or let them talk so the wire shows them), then check again", leftOut)
	}
	m := &Matrix{Hosts: make([]MatrixHost, len(hosts)), Cells: make([][]string, len(hosts)), Why: []MatrixWhy{}}
	for i, h := range hosts {
		m.Hosts[i] = MatrixHost{NodeID: h.n.ID, Name: h.n.Name, Address: h.addr}
		m.Cells[i] = make([]string, len(hosts))
	}
	wantReply := c.Expect != "no_reply"
	lines := make([][]string, len(hosts))
	reasons := make([]map[int]string, len(hosts)) // the error cells' reasons
	var wg sync.WaitGroup
	for i := range hosts {
		reasons[i] = map[int]string{}
		wg.Add(1)
		go func() { // one source: its pings one after the other
			defer wg.Done()
			src := hosts[i]
			for j, dst := range hosts {
				switch {
				case i == j:
					continue
				case src.drv == nil:
					m.Cells[i][j], reasons[i][j] = VerdictError, src.why
					continue
				case dst.addr == "":
					m.Cells[i][j], reasons[i][j] = VerdictError, fmt.Sprintf("nodedesk knows no address of %s: give it one in its configuration, or let it talk so the wire shows it", dst.n.Name)
					continue
				}
				pr, err := ping(ctx, src.drv, src.n.ID, dst.addr)
				if err != nil {
					m.Cells[i][j], reasons[i][j] = VerdictError, fmt.Sprintf("the ping from %s did not run: %s", src.n.Name, ErrorMessage(err))
					continue
				}
				lines[i] = append(lines[i], pr.Lines...)
				if replied(pr) == wantReply {
					m.Cells[i][j] = VerdictPass
				} else {
					m.Cells[i][j] = VerdictFail
				}
			}
		}()
	}
	wg.Wait()

	res := CheckResult{Matrix: m}
	for i, h := range hosts {
		if len(lines[i]) > 0 {
			res.Evidence = append(res.Evidence, Evidence{Kind: EvidenceConsole, NodeID: h.n.ID, Lines: lines[i]})
		}
	}
	var failed, errored []string
	pairs, passed := 0, 0
	evSeen := map[string]bool{}
	for i := range hosts {
		for j := range hosts {
			if i == j {
				continue
			}
			pairs++
			pair := hosts[i].n.Name + "→" + hosts[j].n.Name
			switch m.Cells[i][j] {
			case VerdictPass:
				passed++
			case VerdictError:
				errored = append(errored, pair)
				m.Why = append(m.Why, MatrixWhy{From: i, To: j, Reason: reasons[i][j]})
			case VerdictFail:
				failed = append(failed, pair)
				ev, why := e.explain(ctx, l, hosts[i].n.ID, hosts[j].n.ID)
				for _, x := range ev { // each finding once in the evidence
					key := x.Kind
					if x.Finding != nil {
						key += x.Finding.Code + x.Finding.Message
					} else if x.Fault != nil {
						key += x.Fault.Code + x.Fault.Message
					}
					if !evSeen[key] {
						evSeen[key] = true
						res.Evidence = append(res.Evidence, x)
					}
				}
				reason := ""
				switch {
				case len(why) > 0:
					reason = strings.Join(why, "; ")
				case wantReply:
					reason = fmt.Sprintf("no reply: look at the addresses, masks and gateways of %s and %s, and at the links and VLANs between them", hosts[i].n.Name, hosts[j].n.Name)
				default:
					reason = fmt.Sprintf("%s answered, though the check says it must not: look at what should keep them apart", hosts[j].n.Name)
				}
				m.Why = append(m.Why, MatrixWhy{From: i, To: j, Reason: reason})
			}
		}
	}
	what := "answered"
	if !wantReply {
		what = "stayed apart"
	}
	switch {
	case len(failed) > 0:
		res.Verdict = VerdictFail
		res.Message = fmt.Sprintf("%d of %d pairs of %d hosts %s; these did not: %s. The reasons are by each cell", passed, pairs, len(hosts), what, listSome(failed, 8))
		if len(errored) > 0 {
			res.Message += fmt.Sprintf("; %d pairs could not be checked", len(errored))
		}
	case len(errored) > 0:
		res.Verdict = VerdictError
		res.Message = fmt.Sprintf("%d pairs could not be checked (%s): %s", len(errored), listSome(errored, 8), m.Why[0].Reason)
	default:
		res.Verdict = VerdictPass
		res.Message = fmt.Sprintf("All %d pairs of %d hosts %s", pairs, len(hosts), what)
	}
	res.Message += leftOut
	return res
}

// listSome lists at most max items, and says how many more there are.
func listSome(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:max], ", "), len(items)-max)
}
