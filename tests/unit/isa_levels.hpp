// isa_levels.hpp - the ISA levels a kernel test forces in turn, and undoing the force.
#pragma once

#include "cpu/cpu_features.hpp"

#include <string>
#include <vector>

namespace rdelta::test {

/// The levels the dispatch can be forced to: up to active_isa() with no force_isa()
/// cap, so under RDELTA_FORCE_ISA the list (and a MESSAGE naming it) stays truthful.
inline std::vector<detail::isa> available_levels() {
    detail::reset_forced_isa();
    const detail::isa top = detail::active_isa();
    std::vector<detail::isa> levels;
    for (detail::isa level : detail::isa_ladder())
        if (level <= top) levels.push_back(level);
    return levels;
}

/// The levels' names, space-separated.
inline std::string level_list(const std::vector<detail::isa>& levels) {
    std::string s;
    for (detail::isa level : levels) s += std::string(s.empty() ? "" : " ") + detail::isa_name(level);
    return s;
}

/// Undoes force_isa() however the test case ends.
struct forced_isa_reset {
    forced_isa_reset() = default;
    forced_isa_reset(const forced_isa_reset&) = delete;
    forced_isa_reset& operator=(const forced_isa_reset&) = delete;
    ~forced_isa_reset() { detail::reset_forced_isa(); }
};

}  // namespace rdelta::test
