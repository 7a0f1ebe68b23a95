package storage_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hoodie-dev/hoodie/storage"
)

// fileSystems returns a fresh instance of every FS implementation.
func fileSystems(t *testing.T) map[string]storage.FS {
	t.Helper()
	local, err := storage.NewLocalFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]storage.FS{"local": local, "mem": storage.NewMemFS()}
}

func TestFSContract(t *testing.T) {
	ctx := context.Background()
	for name, fsys := range fileSystems(t) {
		t.Run(name, func(t *testing.T) {
			// CreateIfAbsent creates parents, and never replaces.
			if err := fsys.CreateIfAbsent(ctx, "a/b/c.txt", []byte("one")); err != nil {
				t.Fatal(err)
			}
			if err := fsys.CreateIfAbsent(ctx, "a/b/c.txt", []byte("two")); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("second CreateIfAbsent: got %v, want fs.ErrExist", err)
			}
			mustRead(t, fsys, "a/b/c.txt", "one")

			// WriteFile replaces.
			if err := fsys.WriteFile(ctx, "a/b/c.txt", []byte("three")); err != nil {
				t.Fatal(err)
			}
			mustRead(t, fsys, "a/b/c.txt", "three")

			// Create streams and refuses existing files.
			w, err := fsys.Create(ctx, "d/e.bin")
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, "hello ")
			io.WriteString(w, "world")
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := fsys.Create(ctx, "d/e.bin"); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("Create over a file: got %v, want fs.ErrExist", err)
			}
			f, err := fsys.Open(ctx, "d/e.bin")
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 5)
			if _, err := f.ReadAt(buf, 6); err != nil || string(buf) != "world" || f.Size() != 11 {
				t.Fatalf("ReadAt: %q %v size %d", buf, err, f.Size())
			}
			f.Close()

			// Listing is sorted and shows folders.
			if err := fsys.MkdirAll(ctx, "a/empty"); err != nil {
				t.Fatal(err)
			}
			entries, err := fsys.ReadDir(ctx, ".")
			if err != nil {
				t.Fatal(err)
			}
			if names(entries) != "a/ d/" {
				t.Fatalf("root listing %q", names(entries))
			}
			entries, _ = fsys.ReadDir(ctx, "a")
			if names(entries) != "b/ empty/" {
				t.Fatalf("listing of a: %q", names(entries))
			}
			st, err := fsys.Stat(ctx, "d/e.bin")
			if err != nil || st.Size != 11 || st.IsDir || st.Name != "e.bin" {
				t.Fatalf("Stat: %+v %v", st, err)
			}

			// Rename, Remove, RemoveAll.
			if err := fsys.Rename(ctx, "d/e.bin", "f/g.bin"); err != nil {
				t.Fatal(err)
			}
			mustRead(t, fsys, "f/g.bin", "hello world")
			if _, err := fsys.Stat(ctx, "d/e.bin"); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("renamed file still there: %v", err)
			}
			if err := fsys.Remove(ctx, "f/g.bin"); err != nil {
				t.Fatal(err)
			}
			if err := fsys.Remove(ctx, "f/g.bin"); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("second Remove: got %v, want fs.ErrNotExist", err)
			}
			if err := fsys.RemoveAll(ctx, "a"); err != nil {
				t.Fatal(err)
			}
			if ok, err := storage.Exists(ctx, fsys, "a/b/c.txt"); ok || err != nil {
				t.Fatalf("RemoveAll left a/b/c.txt: %v %v", ok, err)
			}
			if err := fsys.RemoveAll(ctx, "missing"); err != nil {
				t.Fatalf("RemoveAll of a missing name: %v", err)
			}
			if err := fsys.RemoveAll(ctx, "."); err == nil {
				t.Fatal("RemoveAll of the base path was allowed")
			}
		})
	}
}

func TestFSRejectsEscapingPaths(t *testing.T) {
	ctx := context.Background()
	for name, fsys := range fileSystems(t) {
		for _, bad := range []string{"../x", "a/../../x", "/etc/passwd", `a\b`, "a/../b"} {
			if err := fsys.CreateIfAbsent(ctx, bad, nil); !errors.Is(err, storage.ErrInvalidPath) {
				t.Errorf("%s: CreateIfAbsent(%q): got %v, want ErrInvalidPath", name, bad, err)
			}
			if _, err := fsys.ReadFile(ctx, bad); !errors.Is(err, storage.ErrInvalidPath) {
				t.Errorf("%s: ReadFile(%q): got %v, want ErrInvalidPath", name, bad, err)
			}
		}
	}
}

func TestFSHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, fsys := range fileSystems(t) {
		if err := fsys.WriteFile(ctx, "x", []byte("y")); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: got %v, want context.Canceled", name, err)
		}
	}
}

// TestCreateIfAbsentRace has many goroutines create the same file: exactly
// one wins and the file holds the winner's content.
func TestCreateIfAbsentRace(t *testing.T) {
	ctx := context.Background()
	for name, fsys := range fileSystems(t) {
		t.Run(name, func(t *testing.T) {
			var wins atomic.Int32
			var winner atomic.Value
			var wg sync.WaitGroup
			for i := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					content := string(rune('a' + i))
					err := fsys.CreateIfAbsent(ctx, ".hoodie/001.commit", []byte(content))
					switch {
					case err == nil:
						wins.Add(1)
						winner.Store(content)
					case !errors.Is(err, fs.ErrExist):
						t.Errorf("unexpected error: %v", err)
					}
				}()
			}
			wg.Wait()
			if wins.Load() != 1 {
				t.Fatalf("%d winners, want 1", wins.Load())
			}
			mustRead(t, fsys, ".hoodie/001.commit", winner.Load().(string))
		})
	}
}

func mustRead(t *testing.T, fsys storage.FS, name, want string) {
	t.Helper()
	got, err := fsys.ReadFile(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s holds %q, want %q", name, got, want)
	}
}

func names(entries []storage.FileInfo) string {
	s := ""
	for i, e := range entries {
		if i > 0 {
			s += " "
		}
		s += e.Name
		if e.IsDir {
			s += "/"
		}
	}
	return s
}
