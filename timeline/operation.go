package timeline

import "strings"

// Operation is the write operation that made a commit, named as Hudi's
// WriteOperationType enum constants, which is how commit metadata stores it
// ("operationType" : "UPSERT").
type Operation string

// Hudi's write operation types.
const (
	OperationInsert               Operation = "INSERT"
	OperationInsertPrepped        Operation = "INSERT_PREPPED"
	OperationUpsert               Operation = "UPSERT"
	OperationUpsertPrepped        Operation = "UPSERT_PREPPED"
	OperationBulkInsert           Operation = "BULK_INSERT"
	OperationBulkInsertPrepped    Operation = "BULK_INSERT_PREPPED"
	OperationDelete               Operation = "DELETE"
	OperationDeletePrepped        Operation = "DELETE_PREPPED"
	OperationBootstrap            Operation = "BOOTSTRAP"
	OperationInsertOverwrite      Operation = "INSERT_OVERWRITE"
	OperationCluster              Operation = "CLUSTER"
	OperationDeletePartition      Operation = "DELETE_PARTITION"
	OperationInsertOverwriteTable Operation = "INSERT_OVERWRITE_TABLE"
	OperationCompact              Operation = "COMPACT"
	OperationIndex                Operation = "INDEX"
	OperationAlterSchema          Operation = "ALTER_SCHEMA"
	OperationLogCompact           Operation = "LOG_COMPACT"
	OperationUnknown              Operation = "UNKNOWN"
)

// Value returns the operation's lower-case value, as Hudi's
// WriteOperationType.value() gives it ("upsert", "bulk_insert").
func (o Operation) Value() string {
	return strings.ToLower(string(o))
}
