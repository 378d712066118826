// history_folder.cpp - opening an image's history folder and its point files, and
// keeping a committed journal as the newest point.
#include "history_folder.hpp"
#include "history_location.hpp"

#include "core/posix_io.hpp"
#include "core/test_hooks.hpp"
#include "fs/path_walk.hpp"
#include "inplace/in_place_fd_state.hpp"

#include <rdelta/in_place_fd.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace rdelta {

namespace detail {

namespace {

constexpr const char* point_prefix = "point-";
constexpr std::size_t seq_digits = 10;

error io_failed(const std::string& path, const char* what, int err) {
    return fail(errc::io_error, path + ": " + what + ": " + std::strerror(err));
}

// Why a history folder found at `path` is not followed ("" when it is ours).
std::string untrusted_folder(const struct stat& st) {
    if (!S_ISDIR(st.st_mode)) return "not a folder";
    if (st.st_uid != ::geteuid()) return "owned by uid " + std::to_string(st.st_uid) + ", not the caller";
    if ((st.st_mode & 077) != 0) return "others may enter or write it (mode not 0700)";
    return "";
}

std::string untrusted_point(const struct stat& st) {
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    if (st.st_nlink != 1) return "it has other hard links";
    if (st.st_uid != ::geteuid()) return "owned by uid " + std::to_string(st.st_uid) + ", not the caller";
    return "";
}

}  // namespace

point_file::~point_file() {
    if (fd_ >= 0) ::close(fd_);
}

result<void> point_file::create() {
    return fail(errc::internal_error, path_ + ": a point file is made by its history folder");
}

result<std::size_t> point_file::read(std::uint64_t pos, std::span<std::uint8_t> out) {
    const ssize_t r = posix_io::pread_some(fd_, out.data(), out.size(), pos);
    if (r < 0) return io_failed(path_, "read failed", errno);
    return static_cast<std::size_t>(r);
}

result<void> point_file::write(std::uint64_t pos, std::span<const std::uint8_t> bytes) {
    if (const int err = posix_io::pwrite_all(fd_, bytes.data(), bytes.size(), pos))
        return io_failed(path_, "write failed", err);
    return {};
}

result<void> point_file::sync() {
    if (::fsync(fd_) != 0) return io_failed(path_, "fsync failed", errno);
    return {};
}

result<void> point_file::remove() {
    return fail(errc::internal_error, path_ + ": a point file is removed by its history folder");
}

result<loaded_point> read_point(std::unique_ptr<point_file> file) {
    auto slots = read_header_slots(*file);
    if (!slots) return std::move(slots).err();
    if (!slots->newest || slots->newest->state != journal_committed)
        return fail(errc::corrupt, file->name() + ": not a restore point: its header is damaged");
    loaded_point p;
    p.header = *slots->newest;
    std::uint8_t bytes[point_footer_size];
    auto got = read_exact(*file, p.header.records_end, bytes, "its footer");
    if (!got || !decode_footer(bytes, p.header.nonce, p.footer) || p.footer.records_end != p.header.records_end ||
        p.footer.record_count != p.header.record_count || p.footer.old_size != p.header.old_size ||
        p.footer.new_size != p.header.new_size)
        return fail(errc::corrupt, file->name() + ": not a restore point: its footer is missing or damaged");
    struct stat st {};
    if (::fstat(file->fd(), &st) != 0) return io_failed(file->name(), "cannot stat it", errno);
    auto& i = p.info;
    i.time_s = p.footer.time_s, i.kept_s = p.footer.kept_s;
    i.length = p.footer.old_size, i.next_length = p.footer.new_size;
    i.stored_bytes = static_cast<std::uint64_t>(st.st_size);
    i.chunk_size = p.footer.chunk_size;
    i.root = p.footer.old_root, i.next_root = p.footer.new_root, i.delta = p.footer.delta;
    i.file = file->name();
    p.file = std::move(file);
    return p;
}

history_folder::~history_folder() {
    if (fd_ >= 0) ::close(fd_);
    if (image_fd_ >= 0) ::close(image_fd_);
}

std::string history_folder::file_name(std::uint64_t seq) const {
    char name[32];
    std::snprintf(name, sizeof name, "%s%0*" PRIu64, point_prefix, static_cast<int>(seq_digits), seq);
    return name;
}

std::string history_folder::path_of(const std::string& name) const {
    return io_detail::joined(path_, name);
}

result<std::vector<std::uint64_t>> history_folder::sequence_numbers() {
    const int dir = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return io_failed(path_, "cannot list it", errno);
    DIR* d = ::fdopendir(dir);
    if (!d) {
        ::close(dir);
        return io_failed(path_, "cannot list it", errno);
    }
    std::vector<std::uint64_t> seqs;
    const std::string_view prefix(point_prefix);
    while (const dirent* e = ::readdir(d)) {
        const std::string_view name(e->d_name);
        if (name.size() != prefix.size() + seq_digits || !name.starts_with(prefix)) continue;
        const auto digits = name.substr(prefix.size());
        if (digits.find_first_not_of("0123456789") != std::string_view::npos) continue;
        const std::uint64_t seq = std::stoull(std::string(digits));
        if (seq > 0) seqs.push_back(seq);
    }
    ::closedir(d);
    std::sort(seqs.begin(), seqs.end(), std::greater<>());
    return seqs;
}

result<std::unique_ptr<point_file>> history_folder::open_point(std::uint64_t seq) {
    const std::string name = file_name(seq), path = path_of(name);
    const int fd = io_detail::open_beside(fd_, name, O_RDONLY);
    if (fd < 0 && errno == ELOOP)
        return fail(errc::io_error, path + ": not a restore point rdelta made (a symbolic link): not followed");
    if (fd < 0) return io_failed(path, "cannot open the restore point", errno);
    struct stat st {};
    const std::string why = ::fstat(fd, &st) != 0 ? "cannot stat it" : untrusted_point(st);
    if (!why.empty()) {
        ::close(fd);
        return fail(errc::io_error, path + ": not a restore point rdelta made (" + why + "): not followed");
    }
    return std::make_unique<point_file>(fd, path);
}

result<void> history_folder::check_points() {
    auto seqs = sequence_numbers();
    if (!seqs) return std::move(seqs).err();
    for (const std::uint64_t seq : *seqs)
        if (auto file = open_point(seq); !file) return std::move(file).err();
    return {};
}

result<std::vector<loaded_point>> history_folder::load_all() {
    auto seqs = sequence_numbers();
    if (!seqs) return std::move(seqs).err();
    std::vector<loaded_point> all;
    for (const std::uint64_t seq : *seqs) {
        auto file = open_point(seq);
        if (!file) return std::move(file).err();
        auto p = read_point(std::move(*file));
        if (!p) return std::move(p).err();
        if (p->header.ino != 0 && ino_ != 0 && (p->header.dev != dev_ || p->header.ino != ino_))
            return fail(errc::corrupt,
                        p->info.file + ": a restore point of another file than the image (device/inode differ)");
        p->info.seq = seq;
        p->info.number = all.size() + 1;
        all.push_back(std::move(*p));
    }
    return all;
}

result<std::vector<history_point>> history_folder::points() {
    auto all = load_all();
    if (!all) return std::move(all).err();
    std::vector<history_point> out;
    for (auto& p : *all) out.push_back(p.info);
    return out;
}

result<std::unique_ptr<point_file>> history_folder::create_staging(std::string& staging) {
    // A staging file an interrupted run left goes first: nobody else can write here.
    (void)::unlinkat(fd_, staging.c_str(), 0);
    const int fd = io_detail::open_beside(fd_, staging, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return io_failed(path_of(staging), "cannot create it", errno);
    return std::make_unique<point_file>(fd, path_of(staging));
}

result<void> history_folder::sync() {
    if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) return io_failed(path_, "fsync failed", errno);
    return {};
}

result<void> history_folder::replace_point(std::uint64_t seq, const std::function<result<void>(point_file&)>& fill) {
    std::string staging = "staging-" + file_name(seq);
    auto file = create_staging(staging);
    if (!file) return std::move(file).err();
    auto done = fill(**file);
    if (done) done = (*file)->sync();
    if (!done) {
        (void)::unlinkat(fd_, staging.c_str(), 0);
        return done;
    }
    test_hooks::history_step();
    if (::renameat(fd_, staging.c_str(), fd_, file_name(seq).c_str()) != 0) {
        const int err = errno;
        (void)::unlinkat(fd_, staging.c_str(), 0);
        return io_failed(path_of(file_name(seq)), "cannot put the new point in place", err);
    }
    test_hooks::history_step();
    return sync();
}

result<void> history_folder::remove_point(std::uint64_t seq) {
    if (::unlinkat(fd_, file_name(seq).c_str(), 0) != 0 && errno != ENOENT)
        return io_failed(path_of(file_name(seq)), "cannot delete the restore point", errno);
    test_hooks::history_step();
    return {};
}

result<history_point> history_folder::adopt(journal_storage& journal) {
    auto seqs = sequence_numbers();
    if (!seqs) return std::move(seqs).err();
    const std::uint64_t seq = seqs->empty() ? 1 : seqs->front() + 1;
    const std::string name = file_name(seq);
    test_hooks::history_step();
    auto moved = journal.move_to(fd_, name);
    if (!moved) return std::move(moved).err();
    if (!*moved) {
        // Another file system: copy it, synced, then name it, then drop the journal.
        auto staged = replace_point(seq, [&](point_file& out) -> result<void> {
            std::vector<std::uint8_t> buf(std::size_t{1} << 20);
            for (std::uint64_t at = 0;;) {
                auto got = journal.read(at, buf);
                if (!got) return std::move(got).err();
                if (*got == 0) return {};
                if (auto w = out.write(at, {buf.data(), *got}); !w) return w;
                at += *got;
            }
        });
        if (!staged) return std::move(staged).err();
        if (auto r = journal.remove(); !r) return std::move(r).err();
    } else if (auto s = sync(); !s) {
        return std::move(s).err();
    }
    test_hooks::history_step();
    // Before the patch drops its note and writes its manifest (both after this).
    if (image_fd_ >= 0) record_history_location(image_fd_, absolute_);
    auto file = open_point(seq);
    if (!file) return std::move(file).err();
    auto p = read_point(std::move(*file));
    if (!p) return std::move(p).err();
    p->info.seq = seq, p->info.number = 1;
    return p->info;
}

}  // namespace detail

result<std::unique_ptr<history>> history::open(const in_place_fd& image, const std::string& dir, bool create) {
    const auto& s = *image.s_;
    const bool beside = dir.empty();
    const std::string name = beside ? io_detail::beside_name(s.base_, ".rdelta-history") : dir;
    const std::string path = beside ? io_detail::joined(s.folder_name_, name) : dir;
    auto open_it = [&] {
        return beside ? ::openat(s.folder_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                      : ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    };
    int fd = open_it();
    if (fd < 0 && errno == ENOENT) {
        // Kept elsewhere (the image's note says where): never none, nor a second one.
        if (beside)
            if (const auto elsewhere = detail::recorded_history_location(s.fd_))
                return fail(errc::param_error, s.name_ + ": its restore points are in " + *elsewhere +
                                                   " (the history folder given when they were kept): give that "
                                                   "folder again; nothing was changed");
        if (!create) return std::unique_ptr<history>();
        const int made = beside ? ::mkdirat(s.folder_, name.c_str(), 0700) : ::mkdir(dir.c_str(), 0700);
        if (made != 0 && errno != EEXIST) return detail::io_failed(path, "cannot create the history folder", errno);
        fd = open_it();
    }
    if (fd < 0) {
        const int err = errno;
        if (err == ELOOP || err == ENOTDIR)
            return fail(errc::io_error, path +
                                            ": not a history folder rdelta made (a symbolic link or not a "
                                            "folder): not followed; nothing was changed");
        return detail::io_failed(path, "cannot open the history folder", err);
    }
    struct stat st {};
    const std::string why = ::fstat(fd, &st) != 0 ? "cannot stat it" : detail::untrusted_folder(st);
    if (!why.empty()) {
        ::close(fd);
        return fail(errc::io_error,
                    path + ": not a history folder rdelta made (" + why + "): not followed; nothing was changed");
    }
    auto folder = std::make_unique<detail::history_folder>(fd, path, s.dev_, s.ino_);
    if (!beside) {
        std::error_code ec;
        const auto absolute = std::filesystem::absolute(dir, ec).lexically_normal().string();
        const int image_fd = ::fcntl(s.fd_, F_DUPFD_CLOEXEC, 0);
        if (!ec && image_fd >= 0)
            folder->note_on_image(image_fd, absolute);
        else if (image_fd >= 0)
            ::close(image_fd);
    }
    // A planted point file (a symlink, another hard link, someone else's) stops
    // every command, a patch before it writes anything, as a planted folder does.
    if (auto ok = folder->check_points(); !ok) return std::move(ok).err();
    return std::unique_ptr<history>(std::move(folder));
}

}  // namespace rdelta
