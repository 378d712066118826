// in_place_fd_state.hpp - what an in_place_fd holds (rdelta/in_place_fd.hpp keeps it
// behind a pointer): the file's descriptor, its folder's, their names and the
// file's identity at open, which its journal, manifest and staging file must match.
#pragma once

#include <rdelta/in_place_fd.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <cstdint>
#include <string>

namespace rdelta {

// Hidden: nested in an exported class, it would be exported with it (src/librdelta.map).
struct __attribute__((visibility("hidden"))) in_place_fd::state {
    int fd_ = -1;
    int folder_ = -1;  // the folder the file was opened in
    std::string name_, base_, folder_name_;
    std::uint64_t size_ = 0;
    std::uint64_t dev_ = 0, ino_ = 0;
    struct stat st_ {};  // at open

    state() = default;
    state(const state&) = delete;
    state& operator=(const state&) = delete;
    ~state() {
        if (fd_ >= 0) ::close(fd_);
        if (folder_ >= 0) ::close(folder_);
    }
};

}  // namespace rdelta
