module libations.bench/loadgen

go 1.22
