module libations.bench/go-reference

go 1.22
