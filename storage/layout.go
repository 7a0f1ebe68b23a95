package storage

// Paths of a table's metadata folder, relative to the table's base path.
// They live here, beside the file systems, because LocalFS finds the
// table enclosing a folder by its hoodie.properties and the writer lock
// is a file in MetaFolder.
const (
	// MetaFolder holds the timeline and the table's configuration (Hudi's
	// HoodieTableMetaClient.METAFOLDER_NAME).
	MetaFolder           = ".hoodie"
	PropertiesFile       = MetaFolder + "/hoodie.properties"
	PropertiesBackupFile = MetaFolder + "/hoodie.properties.backup"
	TempFolder           = MetaFolder + "/.temp"
	AuxFolder            = MetaFolder + "/.aux"
	SchemaFolder         = MetaFolder + "/.schema"
	DefaultArchiveFolder = "archived"
)
