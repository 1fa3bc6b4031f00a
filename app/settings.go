package app

import "context"

// IOULicense is the IOU license setting of the controller, as GNS3 keeps
// it: the content of an iourc file and whether IOU nodes check it.
// nodedesk runs no IOU node; it keeps the setting so that the GNS3 desktop
// GUI's preferences load and save. Its JSON tags are the store's record
// format and GNS3's wire form.
type IOULicense struct {
	IOURCContent string `json:"iourc_content"`
	LicenseCheck bool   `json:"license_check"`
}

// IOULicenseUpdate is a change to the IOU license setting; every field is
// optional.
type IOULicenseUpdate struct {
	IOURCContent Field[string] `json:"iourc_content"`
	LicenseCheck Field[bool]   `json:"license_check"`
}

// defaultIOULicense is GNS3's setting before any is saved.
func defaultIOULicense() *IOULicense { return &IOULicense{LicenseCheck: true} }

// IOULicense returns the IOU license setting.
func (s *Service) IOULicense(ctx context.Context) (*IOULicense, error) {
	var l *IOULicense
	err := s.view(func(tx Tx) (err error) {
		l, err = iouLicense(tx)
		return err
	})
	return l, err
}

func iouLicense(tx Tx) (*IOULicense, error) {
	l, err := tx.IOULicense()
	if err == nil && l == nil {
		l = defaultIOULicense()
	}
	return l, err
}

// UpdateIOULicense changes the IOU license setting and returns it.
func (s *Service) UpdateIOULicense(ctx context.Context, u IOULicenseUpdate) (*IOULicense, error) {
	var after *IOULicense
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		stored, err := tx.IOULicense()
		if err != nil {
			return err
		}
		after = defaultIOULicense()
		if stored != nil {
			*after = *stored
		}
		setIf(&after.IOURCContent, u.IOURCContent)
		setIf(&after.LicenseCheck, u.LicenseCheck)
		if stored != nil && unchanged(stored, after) {
			return errUnchanged
		}
		return tx.PutIOULicense(after)
	})
	if err != nil {
		return nil, err
	}
	return after, nil
}
