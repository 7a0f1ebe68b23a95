package basefile

// IsColumnarWriter reports whether w writes its file with the columnar
// writer, for the tests of package basefile_test.
func IsColumnarWriter(w *Writer) bool { return w.columnar != nil }
