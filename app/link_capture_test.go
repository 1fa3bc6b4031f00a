package app_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
)

func TestService_StartCapture(t *testing.T) {
	ctx := context.Background()

	tests := []struct {
		name     string
		rename   string // PC1's name before the capture, if set
		give     app.LinkCapture
		wantFile string
		wantDLT  string
	}{
		{"DefaultName", "", app.LinkCapture{}, "PC1_Ethernet0_to_Switch1_Ethernet3.pcap", "DLT_EN10MB"},
		{"DefaultNameFileSafe", "my pc/1", app.LinkCapture{}, "my_pc_1_Ethernet0_to_Switch1_Ethernet3.pcap", "DLT_EN10MB"},
		{"EmptyNameIsDefault", "", app.LinkCapture{FileName: app.Some("")}, "PC1_Ethernet0_to_Switch1_Ethernet3.pcap", "DLT_EN10MB"},
		{"GivenName", "", app.LinkCapture{FileName: app.Some("core.pcap"), DataLinkType: app.Some("DLT_EN10MB")}, "core.pcap", "DLT_EN10MB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, b := newService(t)
			l := mustCreateLinkLab(t, svc)
			if tt.rename != "" {
				if _, err := svc.UpdateNode(ctx, ref(l.pc1), app.NodeUpdate{Name: app.Some(tt.rename)}); err != nil {
					t.Fatal(err)
				}
			}
			lk := mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
			events, stop := b.Subscribe(16)
			defer stop()
			got, err := svc.StartCapture(ctx, l.p.ID, lk.ID, tt.give)
			if err != nil {
				t.Fatal(err)
			}
			wantPath := filepath.Join(svc.CaptureDir(l.p.ID), tt.wantFile)
			if !got.Capturing || got.CaptureFileName == nil || *got.CaptureFileName != tt.wantFile ||
				got.CaptureFilePath == nil || *got.CaptureFilePath != wantPath || got.CaptureDataLinkType != tt.wantDLT {
				t.Errorf("link after StartCapture: capturing %v, file %v, path %v, dlt %q; want %s in %s, %s",
					got.Capturing, strOrNil(got.CaptureFileName), strOrNil(got.CaptureFilePath), got.CaptureDataLinkType, tt.wantFile, wantPath, tt.wantDLT)
			}
			if found, _ := svc.FindLink(ctx, l.p.ID, lk.ID); !found.Capturing {
				t.Error("the capture is not stored")
			}
			if evs := drain(events); len(evs) == 0 || evs[0].Action != app.EventLinkUpdated {
				t.Errorf("events %+v; want link.updated", evs)
			}
		})
	}

	t.Run("SerialDefault", func(t *testing.T) {
		svc, _ := newService(t)
		l := mustCreateLinkLab(t, svc)
		fr2 := mustCreateNode(t, svc, l.p.ID, app.NodeCreate{Type: app.FrameRelaySwitch, NodeUpdate: app.NodeUpdate{
			Properties: &app.FrameRelayUpdate{Mappings: app.Some(map[string]string{"1:102": "3:301"})}}})
		lk := mustLink(t, svc, l.p.ID, portEnd(l.frsw, 0, 2), portEnd(fr2, 0, 1))
		got, err := svc.StartCapture(ctx, l.p.ID, lk.ID, app.LinkCapture{})
		if err != nil {
			t.Fatal(err)
		}
		if got.CaptureDataLinkType != "DLT_FRELAY" {
			t.Errorf("serial link captured as %q; want DLT_FRELAY", got.CaptureDataLinkType)
		}
	})

	errTests := []struct {
		name      string
		give      app.LinkCapture
		wantField string
	}{
		{"ErrInvalidParentFolder", app.LinkCapture{FileName: app.Some("../x.pcap")}, "capture_file_name"},
		{"ErrInvalidSubfolder", app.LinkCapture{FileName: app.Some("a/b.pcap")}, "capture_file_name"},
		{"ErrInvalidAbsolute", app.LinkCapture{FileName: app.Some("/tmp/x.pcap")}, "capture_file_name"},
		{"ErrInvalidDotDot", app.LinkCapture{FileName: app.Some("..")}, "capture_file_name"},
		{"ErrInvalidBackslash", app.LinkCapture{FileName: app.Some(`..\x.pcap`)}, "capture_file_name"},
		{"ErrInvalidNUL", app.LinkCapture{FileName: app.Some("a\x00.pcap")}, "capture_file_name"},
		{"ErrInvalidDataLinkType", app.LinkCapture{DataLinkType: app.Some("DLT_FRELAY")}, "data_link_type"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			l := mustCreateLinkLab(t, svc)
			lk := mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
			_, err := svc.StartCapture(ctx, l.p.ID, lk.ID, tt.give)
			wantCode(t, err, app.EINVALID)
			if got := app.ErrorField(err); got != tt.wantField {
				t.Errorf("error field %q; want %q", got, tt.wantField)
			}
			if found, _ := svc.FindLink(ctx, l.p.ID, lk.ID); found.Capturing || found.CaptureFileName != nil {
				t.Errorf("a refused capture was stored: %+v", found)
			}
		})
	}

	t.Run("ErrConflictAlreadyCapturing", func(t *testing.T) {
		svc, _ := newService(t)
		l := mustCreateLinkLab(t, svc)
		lk := mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
		if _, err := svc.StartCapture(ctx, l.p.ID, lk.ID, app.LinkCapture{FileName: app.Some("a.pcap")}); err != nil {
			t.Fatal(err)
		}
		_, err := svc.StartCapture(ctx, l.p.ID, lk.ID, app.LinkCapture{FileName: app.Some("b.pcap")})
		wantCode(t, err, app.ECONFLICT)
		if found, _ := svc.FindLink(ctx, l.p.ID, lk.ID); strOrNil(found.CaptureFileName) != "a.pcap" {
			t.Errorf("capture file %q; want the first capture's a.pcap", strOrNil(found.CaptureFileName))
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _ := newService(t)
		l := mustCreateLinkLab(t, svc)
		for _, id := range []string{uuid.NewString(), "None"} {
			_, err := svc.StartCapture(ctx, l.p.ID, id, app.LinkCapture{})
			wantCode(t, err, app.ENOTFOUND)
		}
	})
}

func strOrNil(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestService_StopCapture(t *testing.T) {
	ctx := context.Background()
	svc, b := newService(t)
	l := mustCreateLinkLab(t, svc)
	lk := mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
	started, err := svc.StartCapture(ctx, l.p.ID, lk.ID, app.LinkCapture{FileName: app.Some("core.pcap")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := svc.StopCapture(ctx, l.p.ID, lk.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The file's name and path stay, for a client that opens it after.
	if got.Capturing || strOrNil(got.CaptureFileName) != "core.pcap" || strOrNil(got.CaptureFilePath) != strOrNil(started.CaptureFilePath) {
		t.Errorf("link after StopCapture: %+v; want not capturing, file core.pcap kept", got)
	}
	if found, _ := svc.FindLink(ctx, l.p.ID, lk.ID); found.Capturing {
		t.Error("stored link still capturing")
	}
	// Stopping a link that does not capture changes nothing.
	events, stop := b.Subscribe(16)
	defer stop()
	if _, err := svc.StopCapture(ctx, l.p.ID, lk.ID); err != nil {
		t.Errorf("second stop: %v", err)
	}
	if evs := drain(events); len(evs) != 0 {
		t.Errorf("second stop published %+v", evs)
	}
	// A new capture may start again.
	if _, err := svc.StartCapture(ctx, l.p.ID, lk.ID, app.LinkCapture{}); err != nil {
		t.Errorf("capture after a stop: %v", err)
	}
	_, err = svc.StopCapture(ctx, l.p.ID, uuid.NewString())
	wantCode(t, err, app.ENOTFOUND)
}

// TestService_ReconcileCaptures: at start-up no capture is written, so a
// capture a previous run left recorded is recorded as stopped.
func TestService_ReconcileCaptures(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	l := mustCreateLinkLab(t, svc)
	a := mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
	b := mustLink(t, svc, l.p.ID, portEnd(l.pc2, 0, 0), portEnd(l.sw, 0, 4))
	if _, err := svc.StartCapture(ctx, l.p.ID, a.ID, app.LinkCapture{}); err != nil {
		t.Fatal(err)
	}
	if err := svc.ReconcileCaptures(ctx); err != nil {
		t.Fatal(err)
	}
	for _, lk := range []*app.Link{a, b} {
		if got, _ := svc.FindLink(ctx, l.p.ID, lk.ID); got.Capturing {
			t.Errorf("link %s still capturing after ReconcileCaptures", lk.ID)
		}
	}
	if got, _ := svc.FindLink(ctx, l.p.ID, a.ID); got.CaptureFileName == nil {
		t.Error("the stopped capture's file name is gone")
	}
	if err := svc.ReconcileCaptures(ctx); err != nil {
		t.Errorf("ReconcileCaptures with nothing to do: %v", err)
	}
}

func TestService_AvailableFilters(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	l := mustCreateLinkLab(t, svc)
	lk := mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
	got, err := svc.AvailableFilters(ctx, l.p.ID, lk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(app.AvailableFilters()) || len(got) == 0 {
		t.Errorf("%d filters for a link; want every filter (%d)", len(got), len(app.AvailableFilters()))
	}
	_, err = svc.AvailableFilters(ctx, l.p.ID, uuid.NewString())
	wantCode(t, err, app.ENOTFOUND)
}

// TestService_StartCapture_ATM: a link of ATM ports is captured as GNS3
// captures ATM cells, DLT_ATM_RFC1483, by default and when asked; Frame
// Relay is refused there.
func TestService_StartCapture_ATM(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	atm := func(m string) *app.Node {
		return mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.ATMSwitch, NodeUpdate: app.NodeUpdate{
			Properties: &app.ATMUpdate{Mappings: app.Some(json.RawMessage(m))}}})
	}
	a, b := atm(`{"1:1:100": "2:2:200"}`), atm(`{"1:1": "3:3"}`)
	lk := mustLink(t, svc, p.ID, portEnd(a, 0, 2), portEnd(b, 0, 3))
	if _, err := svc.StartCapture(ctx, p.ID, lk.ID, app.LinkCapture{DataLinkType: app.Some("DLT_FRELAY")}); app.ErrorField(err) != "data_link_type" {
		t.Errorf("an ATM link captured as Frame Relay: error %v; want one on data_link_type", err)
	}
	for _, give := range []app.LinkCapture{{}, {DataLinkType: app.Some("DLT_ATM_RFC1483")}} {
		got, err := svc.StartCapture(ctx, p.ID, lk.ID, give)
		if err != nil {
			t.Fatal(err)
		}
		if got.CaptureDataLinkType != "DLT_ATM_RFC1483" {
			t.Errorf("%+v: ATM link captured as %q; want DLT_ATM_RFC1483", give, got.CaptureDataLinkType)
		}
		if _, err := svc.StopCapture(ctx, p.ID, lk.ID); err != nil {
			t.Fatal(err)
		}
	}
}
