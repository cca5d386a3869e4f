#include "textflag.h"

// func ticks() uint64: the TSC between two LFENCEs, so the read does not drift into the timed
// region (engine.cpp, SystemClock::ticks).
TEXT ·ticks(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	LFENCE
	SHLQ $32, DX
	ORQ DX, AX
	MOVQ AX, ret+0(FP)
	RET
