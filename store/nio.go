package store

import (
	"bytes"
	"encoding/binary"

	"github.com/google/uuid"

	"nodedesk/app"
)

// NIOs (nios bucket, keyed as the link_ports index: project, node,
// adapter, port) and the UDP index (udp_ports) that they share with VPCS
// pairs and ports/udp reservations. An index value says what holds the
// port by its length: project + node (32 bytes) a node's UDP pair,
// project + node + adapter + port (36) a NIO's lport, project (16) a
// reservation no NIO took yet.

func (t *tx) NIO(projectID, nodeID string, adapter, port int) (*app.NIO, error) {
	return decode[app.NIO](t.bucket(bucketNIOs).Get(portKey(projectID, nodeID, adapter, port)))
}

func (t *tx) NIOs(projectID string) ([]*app.NIO, error) {
	return projectRecords[app.NIO](t.bucket(bucketNIOs), projectID, nil)
}

// PutNIO writes n and points its lport at it, freeing the lport of the
// NIO it replaces.
func (t *tx) PutNIO(n *app.NIO) error {
	key := portKey(n.ProjectID, n.NodeID, n.AdapterNumber, n.PortNumber)
	old, err := t.NIO(n.ProjectID, n.NodeID, n.AdapterNumber, n.PortNumber)
	if err != nil {
		return err
	}
	if old != nil && old.LPort != n.LPort {
		if err := t.freeUDP(old.LPort, key); err != nil {
			return err
		}
	}
	if err := t.bucket(bucketUDP).Put(u16Key(n.LPort), key); err != nil {
		return err
	}
	return put(t.bucket(bucketNIOs), key, n)
}

func (t *tx) DeleteNIO(projectID, nodeID string, adapter, port int) error {
	key := portKey(projectID, nodeID, adapter, port)
	old, err := t.NIO(projectID, nodeID, adapter, port)
	if err != nil || old == nil {
		return err
	}
	if err := t.freeUDP(old.LPort, key); err != nil {
		return err
	}
	return t.bucket(bucketNIOs).Delete(key)
}

// deleteNodeNIOs removes the NIOs of a node (a node being deleted).
func (t *tx) deleteNodeNIOs(projectID, nodeID string) error {
	prefix := nodeKey(projectID, nodeID)
	var keys [][]byte
	c := t.bucket(bucketNIOs).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		adapter := int(binary.BigEndian.Uint16(k[32:34]))
		port := int(binary.BigEndian.Uint16(k[34:36]))
		if err := t.DeleteNIO(projectID, nodeID, adapter, port); err != nil {
			return err
		}
	}
	return nil
}

// freeUDP deletes the index entry of port if owner holds it.
func (t *tx) freeUDP(port int, owner []byte) error {
	b := t.bucket(bucketUDP)
	if bytes.Equal(b.Get(u16Key(port)), owner) {
		return b.Delete(u16Key(port))
	}
	return nil
}

func (t *tx) ReserveUDP(projectID string, port int) error {
	return t.bucket(bucketUDP).Put(u16Key(port), uuidKey(projectID))
}

func (t *tx) ReleaseUDPReservations(projectID string) error {
	b := t.bucket(bucketUDP)
	owner := uuidKey(projectID)
	var keys [][]byte
	err := b.ForEach(func(k, v []byte) error {
		if bytes.Equal(v, owner) {
			keys = append(keys, append([]byte(nil), k...))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) ReleaseUDPReservation(projectID string, port int) error {
	return t.freeUDP(port, uuidKey(projectID))
}

func (t *tx) UDPPortsInUse() ([]int, error) {
	ports := []int{}
	err := t.bucket(bucketUDP).ForEach(func(k, _ []byte) error {
		ports = append(ports, int(binary.BigEndian.Uint16(k)))
		return nil
	})
	return ports, err
}

func (t *tx) UDPUse(port int) (app.UDPUse, bool, error) {
	if port < 1 || port > 65535 {
		return app.UDPUse{}, false, nil
	}
	return udpUse(t.bucket(bucketUDP), port)
}

// udpUse decodes the index entry of port.
func udpUse(b bucket, port int) (app.UDPUse, bool, error) {
	v := b.Get(u16Key(port))
	switch len(v) {
	case 16:
		pid, _ := uuid.FromBytes(v)
		return app.UDPUse{ProjectID: pid.String()}, true, nil
	case 32:
		k := keyOf(v)
		return app.UDPUse{ProjectID: k.ProjectID, NodeID: k.NodeID}, true, nil
	case 36:
		k := keyOf(v)
		return app.UDPUse{ProjectID: k.ProjectID, NodeID: k.NodeID, NIO: true,
			Adapter: int(binary.BigEndian.Uint16(v[32:34])), Port: int(binary.BigEndian.Uint16(v[34:36]))}, true, nil
	}
	return app.UDPUse{}, false, nil
}
