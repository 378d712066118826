// test_cpu_features.cpp - the SIMD ladder, force_isa() and the level names.
//
// Kernels are tested per level elsewhere (test_*_kernels.cpp); here the rules
// those tests rely on: the ladder starts at scalar and rises, the detected and
// active levels are on it, force_isa() caps within it, and a level from another
// CPU family's ladder leaves scalar.
#include "isa_levels.hpp"

#include "cpu/cpu_features.hpp"

#include <rdelta/version.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <string>

using namespace rdelta::detail;

namespace {

bool on_ladder(isa level) {
    for (isa l : isa_ladder())
        if (l == level) return true;
    return false;
}

}  // namespace

TEST_CASE("the ladder starts at scalar, rises, and holds the detected and active levels") {
    const rdelta::test::forced_isa_reset reset;
    reset_forced_isa();
    const auto ladder = isa_ladder();
    REQUIRE(!ladder.empty());
    CHECK(ladder.front() == isa::scalar);
    for (std::size_t i = 1; i < ladder.size(); ++i) CHECK(ladder[i - 1] < ladder[i]);
    CHECK(on_ladder(detected_isa()));
    CHECK(on_ladder(active_isa()));
    CHECK(active_isa() <= detected_isa());
    CHECK(std::string(rdelta::simd_level()) == isa_name(active_isa()));
#if defined(__x86_64__)
    CHECK(ladder.size() == 4);
    CHECK(ladder.back() == isa::avx512);
#elif defined(__aarch64__)
    CHECK(ladder.size() == 2);
    CHECK(ladder.back() == isa::neon);
#endif
    std::string names;
    for (isa level : ladder) names += std::string(names.empty() ? "" : " ") + isa_name(level);
    MESSAGE("ladder: " << names << "; detected " << std::string(isa_name(detected_isa())) << ", active "
                       << std::string(isa_name(active_isa())));
}

TEST_CASE("force_isa caps within the ladder; another family's level leaves scalar") {
    const rdelta::test::forced_isa_reset reset;
    reset_forced_isa();
    const isa top = active_isa();
    for (isa level : isa_ladder()) {
        CAPTURE(std::string(isa_name(level)));
        force_isa(level);
        CHECK(active_isa() == (level <= top ? level : top));
    }
    for (isa level : {isa::scalar, isa::sse2, isa::avx2, isa::avx512, isa::neon}) {
        if (on_ladder(level)) continue;
        CAPTURE(std::string(isa_name(level)));
        force_isa(level);
        CHECK(active_isa() == isa::scalar);
    }
    reset_forced_isa();
    CHECK(active_isa() == top);
}

TEST_CASE("every level has its own name") {
    const isa all[] = {isa::scalar, isa::sse2, isa::avx2, isa::avx512, isa::neon};
    const char* names[] = {"scalar", "sse2", "avx2", "avx512", "neon"};
    for (std::size_t i = 0; i < 5; ++i) CHECK(std::strcmp(isa_name(all[i]), names[i]) == 0);
}
