//go:build !amd64

package main

// ticks: no TSC read on this architecture; samples carry 0 ticks and capabilities say so.
func ticks() uint64 { return 0 }
