package dataplane

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"nodedesk/app"
)

// The Ethernet switch's console: a small shell, in the words of the
// switches a student practises on. Commands may be shortened to any
// unambiguous prefix of their words ("sh mac add"), and Tab completes a
// word.

// switchCommand is one command of the switch shell.
type switchCommand struct {
	words []string
	args  string // what may follow the words, for help
	help  string
	run   func(s *EthernetSwitch, w io.Writer, args []string) error
}

// errExit ends the session.
var errExit = fmt.Errorf("exit")

var switchCommands = []switchCommand{
	{words: []string{"show", "mac", "address-table"}, args: "[vlan <id>]", help: "the addresses the switch has learnt, per VLAN", run: showMACTable},
	{words: []string{"show", "interfaces"}, help: "each port's mode, VLAN and frame counters", run: showInterfaces},
	{words: []string{"show", "vlan"}, help: "the ports of each VLAN", run: showVLANs},
	{words: []string{"clear", "mac", "address-table"}, help: "forget every learnt address", run: noArgs(func(s *EthernetSwitch, w io.Writer) {
		s.ClearMACTable()
		fmt.Fprintln(w, "MAC address table cleared.")
	})},
	{words: []string{"clear", "counters"}, help: "set every port's counters to 0", run: noArgs(func(s *EthernetSwitch, w io.Writer) {
		s.ClearCounters()
		fmt.Fprintln(w, "Counters cleared.")
	})},
	{words: []string{"help"}, help: "this list"}, // run by runSwitchCommand: it reads this table
	{words: []string{"exit"}, help: "close the console", run: func(*EthernetSwitch, io.Writer, []string) error { return errExit }},
}

func noArgs(f func(s *EthernetSwitch, w io.Writer)) func(*EthernetSwitch, io.Writer, []string) error {
	return func(s *EthernetSwitch, w io.Writer, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("%q is not expected here; type help for the commands", strings.Join(args, " "))
		}
		f(s, w)
		return nil
	}
}

// shell returns the console shell of s; name gives its prompt.
func (s *EthernetSwitch) shell(name *consoleName) shell {
	return func(rw io.ReadWriter) {
		t := term.NewTerminal(rw, "")
		t.AutoCompleteCallback = completeSwitchCommand
		fmt.Fprintf(t, "%s: nodedesk Ethernet switch. Type help for the commands.\n\n", name.get())
		for {
			t.SetPrompt(name.get() + "> ")
			line, err := t.ReadLine()
			if err != nil {
				return
			}
			if err := runSwitchCommand(s, t, line); err == errExit {
				return
			} else if err != nil {
				fmt.Fprintf(t, "%% %v\n", err)
			}
		}
	}
}

// runSwitchCommand runs one line typed at the console.
func runSwitchCommand(s *EthernetSwitch, w io.Writer, line string) error {
	fields := strings.Fields(strings.ToLower(line))
	if len(fields) == 0 {
		return nil
	}
	if fields[0] == "quit" || fields[0] == "?" {
		fields[0] = map[string]string{"quit": "exit", "?": "help"}[fields[0]]
	}
	var found []switchCommand
	for _, c := range switchCommands {
		if matches(c.words, fields) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		var begun []switchCommand
		for _, c := range switchCommands {
			if len(fields) < len(c.words) && matches(c.words[:len(fields)], fields) {
				begun = append(begun, c)
			}
		}
		if len(begun) > 0 {
			return fmt.Errorf("Incomplete command %q: did you mean %s?", line, commandNames(begun))
		}
		return fmt.Errorf("Unknown command %q; type help for the commands", line)
	case 1:
		c, args := found[0], fields[len(found[0].words):]
		if c.run == nil {
			return noArgs(func(_ *EthernetSwitch, w io.Writer) { printHelp(w) })(s, w, args)
		}
		return c.run(s, w, args)
	}
	return fmt.Errorf("Ambiguous command %q: it could be %s", line, commandNames(found))
}

// matches reports whether the first fields are prefixes of words, one by
// one.
func matches(words, fields []string) bool {
	if len(fields) < len(words) {
		return false
	}
	for i, w := range words {
		if !strings.HasPrefix(w, fields[i]) {
			return false
		}
	}
	return true
}

func commandNames(cs []switchCommand) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = `"` + strings.Join(c.words, " ") + `"`
	}
	return strings.Join(names, " or ")
}

// completeSwitchCommand completes the word being typed at the end of the
// line when Tab is pressed and one word of the commands fits.
func completeSwitchCommand(line string, pos int, key rune) (string, int, bool) {
	if key != '\t' || pos != len(line) {
		return "", 0, false
	}
	fields := strings.Fields(strings.ToLower(line))
	partial := ""
	if len(fields) > 0 && !strings.HasSuffix(line, " ") {
		partial, fields = fields[len(fields)-1], fields[:len(fields)-1]
	}
	var next []string
	for _, c := range switchCommands {
		if len(c.words) > len(fields) && matches(c.words[:len(fields)], fields) && strings.HasPrefix(c.words[len(fields)], partial) {
			next = append(next, c.words[len(fields)])
		}
	}
	next = slices.Compact(next)
	if len(next) != 1 {
		return "", 0, false
	}
	done := line[:len(line)-len(partial)] + next[0] + " "
	return done, len(done), true
}

func printHelp(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	for _, c := range switchCommands {
		fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimSpace(strings.Join(c.words, " ")+" "+c.args), c.help)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "Words may be shortened (sh mac add); Tab completes them.")
}

func showMACTable(s *EthernetSwitch, w io.Writer, args []string) error {
	vlan := 0
	switch {
	case len(args) == 2 && strings.HasPrefix("vlan", args[0]):
		v, err := strconv.Atoi(args[1])
		if err != nil || v < app.MinVLAN || v > app.MaxVLAN {
			return fmt.Errorf("VLAN %q is not a VLAN id: give a number from %d to %d", args[1], app.MinVLAN, app.MaxVLAN)
		}
		vlan = v
	case len(args) > 0:
		return fmt.Errorf("show mac address-table takes only \"vlan <id>\"")
	}
	names := portNames(s)
	table := s.MACTable(time.Now().UnixNano())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VLAN\tMAC address\tPort\tAge")
	n := 0
	for _, e := range table {
		if vlan != 0 && e.VLAN != vlan {
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%ds\n", e.VLAN, e.MAC, names(e.Port), int(e.Age.Seconds()))
		n++
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d address%s; an address is forgotten %d s after its last frame.\n",
		n, map[bool]string{true: "", false: "es"}[n == 1], int(MACAging.Seconds()))
	return nil
}

// portNames returns a function naming engine port p.
func portNames(s *EthernetSwitch) func(p int) string {
	c := s.Counters()
	return func(p int) string {
		if p >= 0 && p < len(c) && c[p].Name != "" {
			return c[p].Name
		}
		return "port " + strconv.Itoa(p)
	}
}

func showInterfaces(s *EthernetSwitch, w io.Writer, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("show interfaces takes no arguments")
	}
	counters := s.Counters()
	width := len("Port")
	for _, c := range counters {
		width = max(width, len(c.Name))
	}
	// Names and modes to the left, numbers to the right.
	fmt.Fprintf(w, "%-*s  %-6s  %4s  %10s  %12s  %10s  %12s  %7s\n", width, "Port", "Mode", "VLAN",
		"In frames", "In bytes", "Out frames", "Out bytes", "Dropped")
	for _, c := range counters {
		fmt.Fprintf(w, "%-*s  %-6s  %4d  %10d  %12d  %10d  %12d  %7d\n", width, c.Name, c.Mode, c.VLAN,
			c.InFrames, c.InBytes, c.OutFrames, c.OutBytes, c.Dropped)
	}
	return nil
}

func showVLANs(s *EthernetSwitch, w io.Writer, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("show vlan takes no arguments")
	}
	byVLAN := map[int][]string{}
	var trunks []string
	for _, c := range s.Counters() {
		switch c.Mode {
		case portAccess.String():
			byVLAN[c.VLAN] = append(byVLAN[c.VLAN], c.Name)
		case portQinQ.String():
			byVLAN[c.VLAN] = append(byVLAN[c.VLAN], c.Name+" (Q-in-Q)")
		case portDot1Q.String():
			byVLAN[c.VLAN] = append(byVLAN[c.VLAN], c.Name+" (trunk, native)")
			trunks = append(trunks, c.Name)
		}
	}
	vlans := slices.Sorted(maps.Keys(byVLAN))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VLAN\tPorts")
	for _, v := range vlans {
		for i, line := range wrapList(byVLAN[v], 48) { // narrow terminals: a few ports a line
			if i == 0 {
				fmt.Fprintf(tw, "%d\t%s\n", v, line)
			} else {
				fmt.Fprintf(tw, "\t%s\n", line)
			}
		}
	}
	_ = tw.Flush()
	if len(trunks) > 0 {
		fmt.Fprintf(w, "Trunks (802.1Q, every VLAN tagged but their native one): %s\n", strings.Join(trunks, ", "))
	}
	return nil
}

// wrapList joins items with ", " into lines of at most width characters
// (an item longer than width gets a line of its own).
func wrapList(items []string, width int) []string {
	var lines []string
	line := ""
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		switch {
		case line == "":
			line = it
		case len(line)+1+len(it) <= width:
			line += " " + it
		default:
			lines = append(lines, line)
			line = it
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
