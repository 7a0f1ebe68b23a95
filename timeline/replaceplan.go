package timeline

import (
	"fmt"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
)

// FileGroupID names a file group of a table: its partition path and file
// id.
type FileGroupID struct {
	Partition string
	FileID    string
}

// ClusteringPlanGroups returns the file groups that the clustering plan in
// data rewrites: data is the content of a .replacecommit.requested file,
// Hudi's HoodieRequestedReplaceMetadata as an Avro object container file
// (clusteringPlan.inputGroups[].slices[], each naming a file id and a
// partition path). ok is false when data holds no clustering plan: an
// insert overwrite's requested file is empty or holds none, and the file
// groups it replaces are known only once it completes.
func ClusteringPlanGroups(data []byte) (groups []FileGroupID, ok bool, err error) {
	if len(data) == 0 {
		return nil, false, nil
	}
	objects, err := avrofile.Read(data)
	if err != nil {
		return nil, false, fmt.Errorf("requested replacecommit: %w", err)
	}
	if len(objects) != 1 {
		return nil, false, fmt.Errorf("requested replacecommit: %d objects, want 1", len(objects))
	}
	meta, _ := objects[0].(map[string]any)
	plan, _ := meta["clusteringPlan"].(map[string]any)
	if plan == nil {
		return nil, false, nil
	}
	inputGroups, _ := plan["inputGroups"].([]any)
	for _, g := range inputGroups {
		group, _ := g.(map[string]any)
		slices, _ := group["slices"].([]any)
		for _, s := range slices {
			slice, _ := s.(map[string]any)
			id, _ := slice["fileId"].(string)
			partition, _ := slice["partitionPath"].(string)
			if id == "" {
				return nil, false, fmt.Errorf("requested replacecommit: a slice of the clustering plan has no file id")
			}
			groups = append(groups, FileGroupID{Partition: partition, FileID: id})
		}
	}
	return groups, true, nil
}
