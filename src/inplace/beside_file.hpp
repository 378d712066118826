// beside_file.hpp - where a file kept beside an image lives (its undo journal, its
// manifest): the image's folder, held open so the file is always reached through
// it (a name swapped for a symlink is not followed), the file's name there, the
// path errors give it, and the image as it was opened, which the file must have
// been made for (io_detail::untrusted_because).
#pragma once

#include <sys/stat.h>
#include <unistd.h>
#include <string>
#include <utility>

namespace rdelta {

class beside_file {
protected:
    beside_file(int folder, std::string base, std::string path, const struct stat& image)
        : folder_(folder), base_(std::move(base)), path_(std::move(path)), image_(image) {}
    beside_file(const beside_file&) = delete;
    beside_file& operator=(const beside_file&) = delete;
    ~beside_file() {
        if (folder_ >= 0) ::close(folder_);
    }

    int folder_;  // owned
    std::string base_, path_;
    struct stat image_;
};

}  // namespace rdelta
