package accounts

// SetFailpoint lets tests inject a failure (or a pause) at a named point.
func (s *Service) SetFailpoint(f func(point string) error) { s.fail = f }
