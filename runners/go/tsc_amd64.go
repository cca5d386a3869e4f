package main

// ticks reads the TSC (tsc_amd64.s).
func ticks() uint64
