// history_location.cpp - the image's note of where its restore points are
// (history_location.hpp).
#include "history_location.hpp"

#include <sys/xattr.h>
#include <climits>

namespace rdelta::detail {

namespace {

constexpr const char* attribute = "user.rdelta.history";

}  // namespace

void record_history_location(int image_fd, const std::string& folder) {
    if (recorded_history_location(image_fd) == folder) return;  // as it is: the change time stays
    const std::string value = "1 " + folder;
    (void)::fsetxattr(image_fd, attribute, value.data(), value.size(), 0);
}

std::optional<std::string> recorded_history_location(int image_fd) {
    char value[PATH_MAX + 3];
    const ssize_t n = ::fgetxattr(image_fd, attribute, value, sizeof value);
    if (n < 3 || value[0] != '1' || value[1] != ' ') return std::nullopt;
    return std::string(value + 2, static_cast<std::size_t>(n) - 2);
}

}  // namespace rdelta::detail
