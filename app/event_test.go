package app

import (
	"testing"
	"time"
)

func TestBroker_DropsSlowSubscriber(t *testing.T) {
	b := NewBroker()
	slow, _ := b.Subscribe(2)
	fast, cancel := b.Subscribe(100)
	defer cancel()
	done := make(chan struct{})
	go func() {
		for i := range 10 {
			b.Publish(Event{Action: "node.updated", Payload: i})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Publish blocked on a subscriber that does not read")
	}
	got := 0
	for range slow {
		got++
	}
	if got != 2 {
		t.Errorf("slow subscriber got %d events before being dropped, want its buffer of 2", got)
	}
	for i := range 10 {
		if e := <-fast; e.Payload != i {
			t.Fatalf("fast subscriber got %v, want event %d in order", e.Payload, i)
		}
	}
}

func TestBroker_Unsubscribe(t *testing.T) {
	b := NewBroker()
	ch, cancel := b.Subscribe(1)
	cancel()
	cancel() // twice is harmless
	b.Publish(Event{Action: "x"})
	if _, ok := <-ch; ok {
		t.Error("an ended subscription still receives events")
	}
}
