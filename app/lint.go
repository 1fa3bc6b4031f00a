package app

import "context"

// Lint (decision 0070): what will not work in a project, found from the
// project alone, before anything runs. CONTRACT STUB: issue 39's lint
// helper replaces this file.

// Lint returns what lint finds in a project. Codes: ENOTFOUND.
func (s *Service) Lint(ctx context.Context, projectID string) (*LintReport, error) {
	return &LintReport{Findings: []LintFinding{}}, nil
}

// HostAddresses returns the IPv4 addresses the project's nodes hold as
// their configurations say (Source "config"). Codes: ENOTFOUND.
func (s *Service) HostAddresses(ctx context.Context, projectID string) ([]HostAddress, error) {
	return []HostAddress{}, nil
}
