// planted.hpp - an inline function both files of the planted program compile, one
// of them with AVX2: the linker keeps one copy for the program, the AVX2 one here
// (its object comes first), which is the leak isa_leak_check.py must report.
#pragma once

// noinline: each file emits its own weak copy instead of folding it into callers.
[[gnu::noinline]] inline void planted_add(float* sum, const float* addend, int count) {
    for (int i = 0; i < count; ++i) sum[i] += addend[i] * 3.0f;
}

float planted_caller(float* sum, const float* addend, int count);
