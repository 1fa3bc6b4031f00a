package dataplane

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A stopped node's endpoint releases its port before close returns, even
// while other threads are in calls on its socket, so that the node starts
// again at once on the same port (GNS3 clients stop and start a node with
// nothing in between).
func TestSock_CloseReleasesPortDuringCalls(t *testing.T) {
	peer := listenLoopback(t)
	port := freeUDPPort(t)
	p := udpPeer{bind: "127.0.0.1", local: port, remote: fmt.Sprintf("127.0.0.1:%d", udpPortOf(peer))}
	for round := range 50 {
		s, err := openSock(p)
		if err != nil {
			t.Fatalf("round %d: the port was not released by the last close: %v", round, err)
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		for range 2 { // threads sending and reading as the pollers do
			wg.Add(1)
			go func() {
				defer wg.Done()
				var tx sender
				rx := newPollBatch(batchSize, MaxFrame+1)
				frame := [][]byte{make([]byte, 512)}
				for !stop.Load() {
					_ = s.send(&tx, frame)
					_, _ = s.recv(rx)
				}
			}()
		}
		inCall := make(chan struct{})
		wg.Add(1)
		go func() { // a call that lasts: close must wait for it
			defer wg.Done()
			_ = s.control(func(uintptr) {
				close(inCall)
				time.Sleep(20 * time.Millisecond)
			})
		}()
		<-inCall
		s.close()
		again, err := openSock(p)
		stop.Store(true)
		wg.Wait()
		if err != nil {
			t.Fatalf("round %d: the port is still held after close returned: %v", round, err)
		}
		again.close()
	}
}
