// planted_main.cpp - the baseline file of the planted program (isa-leak-planted):
// it calls planted_add too, so the program holds one weak copy, the AVX2 one.
#include "planted.hpp"

#include <cstdio>

int main(int argc, char**) {
    float sum[64] = {}, addend[64] = {};
    addend[0] = static_cast<float>(argc);
    planted_add(sum, addend, 64);
    std::printf("%g\n", static_cast<double>(planted_caller(sum, addend, 64)));
    return 0;
}
