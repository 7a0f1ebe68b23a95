package write

import (
	"context"
	"sync"

	"github.com/hoodie-dev/hoodie/storage"
)

// removeConcurrency bounds how many files a service deletes at once.
// Deleting waits on the file system, not the CPU: a local disk overlaps
// the unlinks of large files (a clean of nine 7 MB files takes half the
// time with them in parallel), and an object store serves each delete as
// a request of its own.
const removeConcurrency = 16

// removeFiles deletes the files at paths, up to removeConcurrency at once,
// and returns the error of each at its index (nil when it was removed).
// Every path is tried, whatever the others' errors.
func removeFiles(ctx context.Context, fsys storage.FS, paths []string) []error {
	errs := make([]error, len(paths))
	sem := make(chan struct{}, removeConcurrency)
	var wg sync.WaitGroup
	for i, p := range paths {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() {
				<-sem
				wg.Done()
			}()
			errs[i] = fsys.Remove(ctx, p)
		}()
	}
	wg.Wait()
	return errs
}
