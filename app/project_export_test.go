package app

// SetHistory turns the recording of history on or off, for the benchmark
// of what it costs.
func SetHistory(s *Service, on bool) { s.noHistory = !on }
