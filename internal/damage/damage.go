// Package damage damages files for tests: it copies folders and flips bits
// at random bytes of their files, as a disk or a careless hand would.
package damage

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// CopyFiles copies the files of folder src into folder dst, creating it.
// It fails tb on any error.
func CopyFiles(tb testing.TB, src, dst string) {
	tb.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		tb.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// FlipRandomBit flips one bit of a random byte of a random non-empty file
// of folder dir, both drawn from rng, and says where. It fails tb on any
// error.
func FlipRandomBit(tb testing.TB, rng *rand.Rand, dir string) string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Size() > 0 {
			files = append(files, e.Name())
		}
	}
	if len(files) == 0 {
		tb.Fatalf("no file to damage in %s", dir)
	}
	name := files[rng.IntN(len(files))]
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	at := rng.IntN(len(data))
	data[at] ^= 1 << rng.IntN(8)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return fmt.Sprintf("bit flipped in %s at byte %d of %d", name, at, len(data))
}
