package read

import (
	"context"
	"errors"
	"io"
	"sync"
)

// workers read a scan's files in parallel: each takes the next file left,
// fills batches from it with Scan.fill, and hands them to NextBatch.
//
// A worker fills two buffers in turn and holds a token per buffer it may
// fill: it takes a token before filling, and NextBatch gives the token of
// the batch it returned back to the worker on its next call, when the
// caller is done with that batch. So a worker never overwrites a batch the
// caller still holds, and keeps reading while the caller works.
type workers struct {
	scan    *Scan
	results chan result
	done    chan struct{} // closed by stop
	wg      sync.WaitGroup
	last    *worker // the worker whose batch NextBatch returned last
	errs    []error // of closing the workers' files
	errMu   sync.Mutex
}

// worker is one reading goroutine.
type worker struct {
	cursor *cursor
	tokens chan struct{}
}

// result is a batch of a worker, or the error that stopped it.
type result struct {
	batch *Batch
	from  *worker
	err   error
}

// startWorkers starts the scan's workers.
func (s *Scan) startWorkers() *workers {
	ws := &workers{scan: s, results: make(chan result), done: make(chan struct{})}
	for range min(s.parallelism, s.filesLeft()) {
		w := &worker{cursor: s.newCursor(2), tokens: make(chan struct{}, 2)}
		w.tokens <- struct{}{}
		w.tokens <- struct{}{}
		ws.wg.Add(1)
		go ws.run(w)
	}
	go func() {
		ws.wg.Wait()
		close(ws.results)
	}()
	return ws
}

// run is a worker's loop.
func (ws *workers) run(w *worker) {
	defer ws.wg.Done()
	defer func() {
		if err := w.cursor.close(); err != nil {
			ws.errMu.Lock()
			ws.errs = append(ws.errs, err)
			ws.errMu.Unlock()
		}
	}()
	ctx := ws.scan.ctx
	for {
		select {
		case <-w.tokens:
		case <-ws.done:
			return
		case <-ctx.Done():
			return
		}
		b, err := ws.scan.fill(ctx, w.cursor)
		if err == io.EOF {
			return
		}
		select {
		case ws.results <- result{batch: b, from: w, err: err}:
		case <-ws.done:
			return
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// receive returns the next batch any worker filled, or io.EOF when all
// are done.
func (ws *workers) receive(ctx context.Context) (*Batch, error) {
	if ws.last != nil {
		ws.last.tokens <- struct{}{} // the caller is done with its batch
		ws.last = nil
	}
	select {
	case r, ok := <-ws.results:
		switch {
		case !ok:
			if err := ws.scan.ctx.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		case r.err != nil:
			return nil, r.err
		}
		ws.last = r.from
		return r.batch, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// stop stops the workers, waits for them to close their files, and
// returns the errors of closing them.
func (ws *workers) stop() error {
	select {
	case <-ws.done:
	default:
		close(ws.done)
	}
	ws.wg.Wait()
	ws.errMu.Lock()
	defer ws.errMu.Unlock()
	err := errors.Join(ws.errs...)
	ws.errs = nil
	return err
}
