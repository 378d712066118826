// planted_avx2.cpp - compiled with -mavx2: its copy of planted_add uses %ymm.
#include "planted.hpp"

float planted_caller(float* sum, const float* addend, int count) {
    planted_add(sum, addend, count);
    return sum[0];
}
