package transport

// Metrics receives connection measurements. A nil *Metrics records nothing.
// (The Prometheus collectors are filled in with the metrics work.)
type Metrics struct{}

func (m *Metrics) connOpened()   {}
func (m *Metrics) connClosed()   {}
func (m *Metrics) slowClose()    {}
func (m *Metrics) rateLimited()  {}
func (m *Metrics) invalidFrame() {}
