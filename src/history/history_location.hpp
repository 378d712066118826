// history_location.hpp - the image's note of where its restore points are when they
// are not beside it (--history-dir), so that a run that forgets the folder refuses,
// naming it, instead of patching without keeping a point (or recovering one into
// nowhere).
//
// The extended attribute `user.rdelta.history` holds "1 PATH", the folder's
// absolute path. It is written when a point is kept in a folder other than the
// default and the attribute does not already name it (it moves the image's change
// time: once, before the manifest is written). A file system without user
// attributes keeps no note: there the folder must be given every time, as before.
#pragma once

#include <optional>
#include <string>

namespace rdelta::detail {

/// Note on the image open as `image_fd` that its points are in `folder` (absolute);
/// nothing when it already says so, or the file system keeps no attributes.
void record_history_location(int image_fd, const std::string& folder);

/// The folder the image's note names, if any.
std::optional<std::string> recorded_history_location(int image_fd);

}  // namespace rdelta::detail
