package storage

// Paths of the table's metadata folder, relative to the base path.
const (
	MetaFolder           = ".hoodie"
	PropertiesFile       = MetaFolder + "/hoodie.properties"
	PropertiesBackupFile = MetaFolder + "/hoodie.properties.backup"
	TempFolder           = MetaFolder + "/.temp"
	AuxFolder            = MetaFolder + "/.aux"
	SchemaFolder         = MetaFolder + "/.schema"
	DefaultArchiveFolder = "archived"
)
