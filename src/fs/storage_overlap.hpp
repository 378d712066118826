// storage_overlap.hpp - whether writing one open file changes what another reads:
// the same file, the same block device, a partition and its disk, a device-mapper
// or md device and the devices under it, a loop device and its backing file.
#pragma once

#include <sys/stat.h>
#include <string>
#include <vector>

namespace rdelta::io_detail {

/// The storage a file of status `st` lies on, itself first: "f:DEV:INO" for a
/// regular file; for a block device "b:MAJ:MIN", then, found in `sysfs`, its disk
/// when it is a partition, the devices under it (device-mapper, md: `slaves`) and
/// a loop device's backing file, recursively. Empty for anything else.
std::vector<std::string> storage_under(const struct stat& st, const std::string& sysfs = "/sys");

/// Whether one of two such lists lies under (or is) the other's file or device.
/// Two partitions of one disk share the disk but not each other's bytes.
bool storage_overlaps(const std::vector<std::string>& written, const std::vector<std::string>& read);

/// True when writing `written` may change bytes read from `read` (both open
/// descriptors). Regular files and block devices only; anything else (pipes,
/// terminals, character devices) shares nothing.
bool shares_storage(int written, int read);

}  // namespace rdelta::io_detail
