package dynamips

import "nodedesk/app/procrecord"

// records are the runner's records of the processes it runs
// (app/procrecord), which let the next nodedesk end those a killed one
// left.
func (r *Runner) records() procrecord.Records {
	return procrecord.Records{Dir: r.c.RunDir, What: "Dynamips router", Logger: r.c.Logger}
}

// ReapOrphans ends every process a previous nodedesk left running, by its
// records, and removes the records. It returns the names of the nodes
// whose process it ended.
//
// Deprecated: Open does it.
func (r *Runner) ReapOrphans() ([]string, error) { return r.records().ReapOrphans() }
