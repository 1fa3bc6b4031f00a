package app

import "context"

// Running a project's checks (decision 0070). CONTRACT STUB: issue 39's
// checks helper replaces this file.

// checkRuns is each project's runs of its checks.
type checkRuns struct{}

// RunChecks starts a run of a project's checks. Codes: ENOTFOUND,
// EINVALID, ECONFLICT.
func (s *Service) RunChecks(ctx context.Context, projectID string, req CheckRunRequest) (*CheckRun, error) {
	return nil, &Error{Code: EINTERNAL, Message: "checks are not built yet"}
}

// LastCheckRun returns a project's newest run. Codes: ENOTFOUND.
func (s *Service) LastCheckRun(ctx context.Context, projectID string) (*CheckRun, error) {
	return nil, &Error{Code: ENOTFOUND, Message: "No check ran in this project yet"}
}
