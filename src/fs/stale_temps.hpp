// stale_temps.hpp - removing the named temporary outputs that runs killed outright
// (SIGKILL, the OOM killer, a reboot) left behind where files cannot be unnamed.
#pragma once

#include <string>

namespace rdelta::io_detail {

/// Whether `entry` is a temporary output name for `base`: `.BASE.rdelta-` or
/// `.rdelta-` followed by exactly six letters or digits (what make_temp_beside and
/// link_unnamed_beside create). Journals and rewrite staging files never match.
bool is_temp_name(const std::string& entry, const std::string& base);

/// Delete, in `folder`, the temporary outputs for `base` that no process is
/// writing: regular files with one link, owned by the caller, not locked (every
/// temporary output is flocked while its run lives), and unchanged for ten
/// minutes. Best effort: anything in doubt is left alone.
void remove_stale_temps(const std::string& folder, const std::string& base);

/// Take the lock that marks the temporary output `fd` as alive.
void mark_temp_alive(int fd);

}  // namespace rdelta::io_detail
