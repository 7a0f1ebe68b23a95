package index

import "github.com/cockroachdb/pebble/v2"

// quietLogger is the Pebble logger an index uses unless Options.Logger says
// otherwise. It drops informational lines and passes errors on to Pebble's
// default logger. Fatalf also goes there: Pebble calls it when its state can
// no longer be trusted and does not expect it to return.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}

func (quietLogger) Errorf(format string, args ...any) {
	pebble.DefaultLogger.Errorf(format, args...)
}

func (quietLogger) Fatalf(format string, args ...any) {
	pebble.DefaultLogger.Fatalf(format, args...)
}
