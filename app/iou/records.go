package iou

import "nodedesk/app/procrecord"

// records are the runner's records of the processes it runs
// (app/procrecord), which let the next nodedesk end those a killed one
// left.
func (r *Runner) records() procrecord.Records {
	return procrecord.Records{Dir: r.c.RunDir, What: "IOU node", Logger: r.c.Logger}
}
