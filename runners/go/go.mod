module cryptobench/runners/go

go 1.26.0

require (
	golang.org/x/crypto v0.59.0
	golang.org/x/sys v0.50.0
)

require github.com/cloudflare/circl v1.6.5
