module github.com/hoodie-dev/hoodie

go 1.26
