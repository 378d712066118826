// storage_overlap.cpp - the storage under an open file, to find an output that is
// also an input. Written directly (a device, /dev/fd/N, standard output), such an
// output overwrites what is still to be read: a patch whose COPY reads a region
// already written puts the wrong bytes there and exits 0.
#include "storage_overlap.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace rdelta::io_detail {

namespace {

std::string file_id(const struct stat& st) {
    return "f:" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

std::string device_id(unsigned maj, unsigned min) {
    return "b:" + std::to_string(maj) + ":" + std::to_string(min);
}

// "MAJ:MIN" as sysfs writes it in a device's `dev` file.
bool read_dev(const std::string& path, unsigned& maj, unsigned& min) {
    std::ifstream in(path);
    std::string text;
    return std::getline(in, text) && std::sscanf(text.c_str(), "%u:%u", &maj, &min) == 2;
}

void add_device(const std::string& sysfs, unsigned maj, unsigned min, std::vector<std::string>& ids, int depth);

// A device's dir in sysfs: its disk when it is a partition, the devices under it
// (slaves: device-mapper, md), and a loop device's backing file.
void add_underlying(const std::string& sysfs, const std::string& dir, std::vector<std::string>& ids, int depth) {
    unsigned maj = 0, min = 0;
    struct stat st {};
    if (::stat((dir + "/partition").c_str(), &st) == 0 && read_dev(dir + "/../dev", maj, min))
        add_device(sysfs, maj, min, ids, depth + 1);
    if (DIR* d = ::opendir((dir + "/slaves").c_str())) {
        while (const dirent* e = ::readdir(d))
            if (e->d_name[0] != '.' && read_dev(dir + "/slaves/" + e->d_name + "/dev", maj, min))
                add_device(sysfs, maj, min, ids, depth + 1);
        ::closedir(d);
    }
    std::ifstream backing(dir + "/loop/backing_file");
    std::string path;
    if (std::getline(backing, path) && ::stat(path.c_str(), &st) == 0) ids.push_back(file_id(st));
}

void add_device(const std::string& sysfs, unsigned maj, unsigned min, std::vector<std::string>& ids, int depth) {
    if (depth > 8) return;  // sysfs has no cycles; this bounds a malformed one
    ids.push_back(device_id(maj, min));
    add_underlying(sysfs, sysfs + "/dev/block/" + std::to_string(maj) + ":" + std::to_string(min), ids, depth);
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
    for (const auto& i : ids)
        if (i == id) return true;
    return false;
}

}  // namespace

std::vector<std::string> storage_under(const struct stat& st, const std::string& sysfs) {
    std::vector<std::string> ids;
    if (S_ISREG(st.st_mode))
        ids.push_back(file_id(st));
    else if (S_ISBLK(st.st_mode))
        add_device(sysfs, major(st.st_rdev), minor(st.st_rdev), ids, 0);
    return ids;
}

bool storage_overlaps(const std::vector<std::string>& written, const std::vector<std::string>& read) {
    if (written.empty() || read.empty()) return false;
    return contains(read, written.front()) || contains(written, read.front());
}

bool shares_storage(int written, int read) {
    struct stat out {
    }, in{};
    if (::fstat(written, &out) != 0 || ::fstat(read, &in) != 0) return false;
    return storage_overlaps(storage_under(out), storage_under(in));
}

}  // namespace rdelta::io_detail
