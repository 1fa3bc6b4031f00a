package app_test

import (
	"context"
	"testing"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

func TestService_IOULicense(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	got, err := svc.IOULicense(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (app.IOULicense{LicenseCheck: true}); *got != want {
		t.Errorf("IOU license before any is saved = %+v; want GNS3's %+v", *got, want)
	}
}

func TestService_UpdateIOULicense(t *testing.T) {
	ctx := context.Background()
	const iourc = "[license]\nnodedesk = 0123456789abcdef;\n"
	tests := []struct {
		name  string
		steps []app.IOULicenseUpdate
		want  app.IOULicense
	}{
		{"Both", []app.IOULicenseUpdate{{IOURCContent: app.Some(iourc), LicenseCheck: app.Some(true)}},
			app.IOULicense{IOURCContent: iourc, LicenseCheck: true}},
		{"PartialKeepsTheOther", []app.IOULicenseUpdate{
			{IOURCContent: app.Some(iourc), LicenseCheck: app.Some(true)},
			{LicenseCheck: app.Some(false)},
		}, app.IOULicense{IOURCContent: iourc, LicenseCheck: false}},
		{"PartialOnTheDefault", []app.IOULicenseUpdate{{IOURCContent: app.Some(iourc)}},
			app.IOULicense{IOURCContent: iourc, LicenseCheck: true}},
		{"Empty", []app.IOULicenseUpdate{{}}, app.IOULicense{LicenseCheck: true}},
		{"NoChangeTwice", []app.IOULicenseUpdate{{LicenseCheck: app.Some(false)}, {LicenseCheck: app.Some(false)}},
			app.IOULicense{LicenseCheck: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := storetest.Open(t)
			svc := app.NewService(app.Config{Store: s, DataDir: t.TempDir(), HostInterfaces: hostInterfaces, PortFree: everyPortFree})
			var got *app.IOULicense
			for i, u := range tt.steps {
				var err error
				if got, err = svc.UpdateIOULicense(ctx, u); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			if *got != tt.want {
				t.Errorf("UpdateIOULicense = %+v; want %+v", *got, tt.want)
			}
			// It is stored, not kept in memory: another Service on the
			// same store reads it.
			other := app.NewService(app.Config{Store: s, DataDir: t.TempDir(), HostInterfaces: hostInterfaces, PortFree: everyPortFree})
			if stored, err := other.IOULicense(ctx); err != nil || *stored != tt.want {
				t.Errorf("stored IOU license = %+v, %v; want %+v", stored, err, tt.want)
			}
		})
	}
}
