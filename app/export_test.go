package app

// SettleAfter hands events to the provisions as a committed write does and
// waits until every background provision has ended: a test's way to give
// one write events no use case emits together.
func (s *Service) SettleAfter(events []Event) {
	s.provisionAfter(events)
	s.prov.wg.Wait()
}
