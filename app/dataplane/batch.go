package dataplane

import "net"

// batchSize is how many datagrams one batched read or write carries at
// most: enough to drain a burst with one system call, small enough that
// its buffers (batchSize × MaxFrame) stay modest per endpoint.
const batchSize = 32

// newBatch returns a batch of n buffers of size bytes each on the
// connected socket conn.
func newBatch(conn *net.UDPConn, n, size int) (*batch, error) {
	b := &batch{conn: conn, bufs: make([][]byte, n), lens: make([]int, n)}
	for i := range b.bufs {
		b.bufs[i] = make([]byte, size)
	}
	return b, b.init()
}

// frame returns the i-th datagram of the last recv.
func (b *batch) frame(i int) []byte { return b.bufs[i][:b.lens[i]] }
