package table

// SetFailpoint lets tests inject a failure at a named point.
func (s *Service) SetFailpoint(f func(point string) error) { s.fail = f }
