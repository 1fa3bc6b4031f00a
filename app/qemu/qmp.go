package qemu

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// qmp is a connection to a QEMU's monitor in its machine protocol (QMP):
// JSON objects, one per line; each command gets a "return" or an "error",
// and events may come in between. The protocol is a dozen lines to speak,
// so nodedesk speaks it itself rather than take a library for it.
type qmp struct {
	mu   sync.Mutex // one command at a time
	conn net.Conn
	in   *bufio.Reader
}

// qmpWait bounds the wait for one answer of the monitor.
const qmpWait = 30 * time.Second

// dialQMP reads the monitor's greeting on conn and leaves the
// capabilities negotiation, after which commands may be sent.
func dialQMP(conn net.Conn, wait time.Duration) (*qmp, error) {
	q := &qmp{conn: conn, in: bufio.NewReader(conn)}
	_ = conn.SetDeadline(time.Now().Add(wait))
	var greeting struct {
		QMP json.RawMessage `json:"QMP"`
	}
	line, err := q.in.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(line, &greeting); err != nil || greeting.QMP == nil {
		return nil, fmt.Errorf("not a QMP greeting: %.80q", line)
	}
	if _, err := q.exec("qmp_capabilities", nil, wait); err != nil {
		return nil, err
	}
	return q, nil
}

// qmpError is an error the monitor answered.
type qmpError struct{ Class, Desc string }

func (e *qmpError) Error() string { return e.Desc }

// run executes one command and returns its "return" value.
func (q *qmp) run(command string, args any) (json.RawMessage, error) {
	return q.exec(command, args, qmpWait)
}

func (q *qmp) exec(command string, args any, wait time.Duration) (json.RawMessage, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	req := map[string]any{"execute": command}
	if args != nil {
		req["arguments"] = args
	}
	b, _ := json.Marshal(req)
	_ = q.conn.SetDeadline(time.Now().Add(wait))
	if _, err := q.conn.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	for {
		line, err := q.in.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var msg struct {
			Return json.RawMessage `json:"return"`
			Error  *struct {
				Class string `json:"class"`
				Desc  string `json:"desc"`
			} `json:"error"`
			Event string `json:"event"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			return nil, fmt.Errorf("the monitor sent %.80q: %v", line, err)
		}
		switch {
		case msg.Error != nil:
			return nil, &qmpError{Class: msg.Error.Class, Desc: msg.Error.Desc}
		case msg.Return != nil:
			return msg.Return, nil
		} // an event: the answer is still to come
	}
}

// hmp runs a command of the human monitor (savevm has no QMP command in
// QEMU 7) and returns its output, which is empty when it succeeded.
func (q *qmp) hmp(line string) error {
	out, err := q.run("human-monitor-command", map[string]string{"command-line": line})
	if err != nil {
		return err
	}
	var text string
	_ = json.Unmarshal(out, &text)
	if text != "" {
		return errors.New(text)
	}
	return nil
}

func (q *qmp) close() { q.conn.Close() }
