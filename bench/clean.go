package bench

import (
	"fmt"

	"github.com/hoodie-dev/hoodie"
	"github.com/hoodie-dev/hoodie/write"
)

// CleanerPairs is how many times each run times the upsert with and without
// the cleaner. A clean adds a few percent to the upsert, less than the
// noise between single runs of a shared machine: the medians of many
// alternated pairs are steady where those of a few are not.
const CleanerPairs = 3

// cleaner times the 1,000-key upsert into t with the automatic cleaner off
// (Upsert1kNoClean) and on, keeping one commit (Upsert1kClean),
// CleanerPairs times each, alternated, each pair starting with the one
// that went second in the pair before. It checks that each upsert
// committed files, and that each with the cleaner completed a clean and
// none without did.
func (r *runner) cleaner(t *hoodie.Table) error {
	off := write.DefaultSettings()
	off.Cleaner.Automatic = false
	on := write.DefaultSettings()
	on.Cleaner.CommitsRetained = 1
	in := input(r.data.Upsert1k.Trips)
	upsert := func(workload Workload, settings write.Settings) error {
		var res *write.Result
		if err := r.measure(workload, len(in.Rows), func() (string, error) {
			var err error
			res, err = t.Write(r.ctx, write.OpUpsert, in, hoodie.WriteOptions{Settings: settings})
			if err != nil {
				return "", err
			}
			if res.Clean != "" {
				return written(res) + "; clean " + res.Clean, nil
			}
			return written(res), nil
		}); err != nil {
			return err
		}
		switch {
		case res.Instant == "" || len(res.Files) == 0:
			return fmt.Errorf("%s: committed no file", workload)
		case len(res.Warnings) > 0:
			return fmt.Errorf("%s: %w", workload, res.Warnings[0])
		case (res.Clean != "") != settings.Cleaner.Automatic:
			return fmt.Errorf("%s: clean %q, with the automatic cleaner %v", workload, res.Clean, settings.Cleaner.Automatic)
		}
		return nil
	}
	for range CleanerPairs {
		order := []Workload{Upsert1kNoClean, Upsert1kClean}
		if len(r.samples[Upsert1kClean])%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, w := range order {
			settings := off
			if w == Upsert1kClean {
				settings = on
			}
			if err := upsert(w, settings); err != nil {
				return err
			}
		}
	}
	r.validate(Upsert1kNoClean, "every upsert committed files, and no clean")
	r.validate(Upsert1kClean, "every upsert committed files, and a clean after it")
	return nil
}
