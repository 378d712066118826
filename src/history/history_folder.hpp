// history_folder.hpp - the folder of an image's restore points, reached through
// its descriptor only, and its point files, each opened once and checked to be
// ours (rdelta/history.hpp says which files are followed).
#pragma once

#include "inplace/journal_reader.hpp"
#include "inplace/point_format.hpp"

#include <rdelta/history.hpp>
#include <rdelta/journal.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rdelta::detail {

/// A point file open for reading (and, while it is being made, writing), as the
/// journal it is: journal_reader's functions read it.
class point_file final : public journal_storage {
public:
    point_file(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
    ~point_file() override;
    point_file(const point_file&) = delete;
    point_file& operator=(const point_file&) = delete;
    bool exists() override { return true; }
    result<void> create() override;
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override;
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) override;
    result<void> sync() override;
    result<void> sync_folder() override { return {}; }
    result<void> remove() override;
    const std::string& name() const override { return path_; }
    int fd() const noexcept { return fd_; }

private:
    int fd_;
    std::string path_;
};

/// A point as read from its file: header, footer and the file, open.
struct loaded_point {
    history_point info;
    journal_header header;
    point_footer footer;
    std::unique_ptr<point_file> file;
};

/// Check a journal's header and footer: the point they describe (info without its
/// number and file), or corrupt naming the journal.
result<loaded_point> read_point(std::unique_ptr<point_file> file);

class history_folder final : public history {
public:
    history_folder(int fd, std::string path, std::uint64_t image_dev, std::uint64_t image_ino)
        : fd_(fd), path_(std::move(path)), dev_(image_dev), ino_(image_ino) {}
    /// A folder given by the caller (not beside the image): each point kept notes
    /// on the image, open as `image_fd` (owned), that its points are in `absolute`.
    void note_on_image(int image_fd, std::string absolute) { image_fd_ = image_fd, absolute_ = std::move(absolute); }
    ~history_folder() override;

    result<std::vector<history_point>> points() override;
    result<history_point> adopt(journal_storage& journal) override;
    const std::string& name() const override { return path_; }

    /// The points, newest first, each open and checked.
    result<std::vector<loaded_point>> load_all();
    /// Write a new point file from `bytes` written through `fill` into a staging
    /// file, synced, then renamed over the point `seq`'s file (or to it, when there
    /// is none), and the folder synced.
    result<void> replace_point(std::uint64_t seq, const std::function<result<void>(point_file&)>& fill);
    /// Every point file is one rdelta made (a regular file of the caller's, one
    /// link): checked when the folder is opened, before anything is written.
    result<void> check_points();
    /// Delete the point `seq`'s file (synced by sync()).
    result<void> remove_point(std::uint64_t seq);
    result<void> sync();

private:
    std::string file_name(std::uint64_t seq) const;
    std::string path_of(const std::string& name) const;
    result<std::vector<std::uint64_t>> sequence_numbers();
    result<std::unique_ptr<point_file>> open_point(std::uint64_t seq);
    result<std::unique_ptr<point_file>> create_staging(std::string& staging);

    int fd_;
    std::string path_;
    std::uint64_t dev_, ino_;
    int image_fd_ = -1;     // note_on_image()
    std::string absolute_;  // note_on_image()
};

}  // namespace rdelta::detail
