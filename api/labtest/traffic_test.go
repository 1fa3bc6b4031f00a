package labtest

import (
	"bytes"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"nodedesk/app/kit"
)

// Bad traffic loses nothing: frames sent by the test itself, over a
// cloud's UDP tunnels (the same seam a process on another machine would
// use), into nodedesk's switches. Only 127.0.0.1.

func TestDataPlane_BadDatagrams(t *testing.T) {
	ts := Start(t, Options{DataPlane: true})
	pid := ts.MustCreateProject("lab")
	a, b := kit.NewUDPPeer(t), kit.NewUDPPeer(t)
	cloud := ts.CloudTunnels(t, pid, a, b)
	sw := ts.MustCreateSwitch(t, pid, nil)
	ts.Link(t, pid, cloud, 0, sw, 0)
	ts.Link(t, pid, cloud, 1, sw, 1)

	// A good frame crosses the switch from a to b.
	a.Send(t, kit.EthFrame(kit.Broadcast, kit.MACA, []byte("hello")))
	if !kit.Holds(b.Receive(300*time.Millisecond, 5*time.Second), "hello") {
		t.Fatal("a frame sent into the cloud's tunnel did not cross the switch")
	}

	// Runts (shorter than an Ethernet header), an empty datagram, a giant
	// (larger than the largest jumbo frame), garbage, and a datagram from
	// an address that is not the tunnel's peer: none crosses, none stops
	// nodedesk.
	a.Send(t, nil)
	a.Send(t, []byte{1})
	a.Send(t, []byte("runt-13bytes"))
	giant := kit.EthFrame(kit.Broadcast, kit.MACA, bytes.Repeat([]byte{0xee}, 12000))
	copy(giant[len(giant)-5:], "giant")
	a.Send(t, giant)
	garbage := make([]byte, 1500)
	for i := range garbage {
		garbage[i] = byte(i * 7919)
	}
	a.Send(t, garbage)
	stranger := kit.NewUDPPeer(t)
	stranger.LPort = a.LPort // another socket sending to a's tunnel
	stranger.Send(t, kit.EthFrame(kit.Broadcast, kit.MACA, []byte("stranger")))
	a.Send(t, kit.EthFrame(kit.Broadcast, kit.MACA, []byte("after")))

	got := b.Receive(300*time.Millisecond, 5*time.Second)
	for _, bad := range []string{"runt", "giant", "stranger"} {
		if kit.Holds(got, bad) {
			t.Errorf("a %s datagram crossed the switch", bad)
		}
	}
	if !kit.Holds(got, "after") {
		t.Fatalf("after bad datagrams a good frame no longer crosses: got %d frames", len(got))
	}
	ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200)
}

func TestDataPlane_BroadcastStorm(t *testing.T) {
	ts := Start(t, Options{DataPlane: true})
	pid := ts.MustCreateProject("lab")
	src, dst := kit.NewUDPPeer(t), kit.NewUDPPeer(t)
	cloud := ts.CloudTunnels(t, pid, src, dst)
	// A switching loop: two switches linked twice (no spanning tree, as
	// in GNS3). Every broadcast goes round it.
	sw1, sw2 := ts.MustCreateSwitch(t, pid, nil), ts.MustCreateSwitch(t, pid, nil)
	ts.Link(t, pid, sw1, 1, sw2, 1)
	ts.Link(t, pid, sw1, 2, sw2, 2)
	ts.Link(t, pid, cloud, 0, sw1, 0)
	ts.Link(t, pid, cloud, 1, sw2, 0)

	// While the storm rages the API answers every request.
	stop := make(chan struct{})
	var answered atomic.Int64
	var apiErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := &http.Client{Timeout: 5 * time.Second}
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			resp, err := client.Get(ts.URL + "/v2/projects/" + pid + "/nodes")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != 200 {
					err = errors.New(resp.Status)
				}
			}
			if err != nil {
				apiErr = err
				return
			}
			answered.Add(1)
		}
	}()

	// 2,000 broadcasts, sent in at most 2 s.
	const sent = 2000
	received := make(chan int, 1)
	go func() { received <- len(dst.Receive(time.Second, 20*time.Second)) }()
	deadline := time.Now().Add(2 * time.Second)
	for i := 0; i < sent && time.Now().Before(deadline); i++ {
		src.Send(t, kit.EthFrame(kit.Broadcast, kit.MACA, []byte("storm")))
		if i%100 == 99 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	n := <-received // the storm has died down: nothing for a second
	close(stop)
	wg.Wait()
	if apiErr != nil {
		t.Fatalf("the API failed during the storm: %v", apiErr)
	}
	if answered.Load() == 0 {
		t.Fatal("the API answered no request during the storm")
	}
	// Each broadcast goes round the loop, but a bounded number of times:
	// it reaches dst at least once, and becomes at most 256 frames.
	if n < sent/2 || n > sent*256 {
		t.Errorf("dst got %d frames for %d broadcasts: want at least one each and a bounded number", n, sent)
	}
	t.Logf("%d broadcasts in a loop: %d frames out of the loop, %d API answers meanwhile", sent, n, answered.Load())

	// The storm is over: a frame crosses, and nothing else comes.
	src.Send(t, kit.EthFrame(kit.Broadcast, kit.MACA, []byte("calm")))
	if got := dst.Receive(500*time.Millisecond, 5*time.Second); !kit.Holds(got, "calm") || len(got) > 256 {
		t.Fatalf("after the storm, one broadcast brought %d frames", len(got))
	}
}
