// test_hooks_off.cpp - the library's test hooks, which do nothing. Test programs
// link their own (tests/hooks/test_hooks_on.cpp) ahead of the library, and the
// linker then never takes this object from the archive: it must define the hooks
// of test_hooks.hpp and nothing else.
#include "test_hooks.hpp"

namespace rdelta::detail::test_hooks {

void count(event, std::uint64_t) noexcept {}

bool gather_forced() noexcept {
    return false;
}

void history_step() noexcept {}

void target_folder_entered() noexcept {}

void in_place_committed() noexcept {}

void steer_in_place(std::uint64_t&, std::function<void(std::uint64_t)>&) {}

}  // namespace rdelta::detail::test_hooks
