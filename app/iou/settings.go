package iou

import (
	"encoding/json"

	"nodedesk/app"
)

// settings are what a start reads of an IOU node's properties, as the
// domain filled them (app.DecodeSettings).
type settings struct {
	ApplicationID    int  `json:"application_id"`
	EthernetAdapters int  `json:"ethernet_adapters"`
	SerialAdapters   int  `json:"serial_adapters"`
	RAM              int  `json:"ram"`
	NVRAM            int  `json:"nvram"`
	L1Keepalives     bool `json:"l1_keepalives"`
	UseDefaults      bool `json:"use_default_iou_values"`
}

// licence is what GNS3's controller sends with a start (app.Process's
// StartBody).
type licence struct {
	IOURC string `json:"iourc_content"`
	Check bool   `json:"license_check"`
}

func readSettings(p app.Process) (settings, licence, error) {
	var s settings
	if err := app.DecodeSettings(app.IOU, p.Properties, &s); err != nil {
		return s, licence{}, err
	}
	l := licence{Check: true}
	if b, err := json.Marshal(p.StartBody); err == nil && p.StartBody != nil {
		_ = json.Unmarshal(b, &l)
	}
	return s, l, nil
}
