// delta_passes.cpp - reopening (or spooling) a delta for each in-place pass.
#include "delta_passes.hpp"

#include "core/posix_io.hpp"

#include <rdelta/compression.hpp>
#include <rdelta/file.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rdelta::cli {

namespace {

// A spooled copy read from its start; shares the spool's descriptor.
class spool_reader final : public byte_source {
public:
    spool_reader(std::shared_ptr<const posix_io::unique_fd> fd, std::string name)
        : fd_(std::move(fd)), name_(std::move(name)) {}
    result<std::size_t> read_full(std::span<std::uint8_t> out) override {
        const ssize_t got = posix_io::pread_full(fd_->get(), out.data(), out.size(), pos_);
        if (got < 0)
            return fail(errc::io_error, name_ + ": reading its temporary copy failed: " + std::strerror(errno));
        pos_ += static_cast<std::uint64_t>(got);
        return static_cast<std::size_t>(got);
    }
    std::optional<std::uint64_t> size() const noexcept override { return std::nullopt; }
    const std::string& name() const noexcept override { return name_; }

private:
    std::shared_ptr<const posix_io::unique_fd> fd_;
    std::string name_;
    std::uint64_t pos_ = 0;
};

// The decompressor in front of a raw input (which it owns).
result<std::unique_ptr<byte_source>> layered(std::unique_ptr<byte_source> raw) {
    auto d = decompressing_reader::open(std::move(raw));
    if (!d) return std::move(d).err();
    return std::unique_ptr<byte_source>(std::make_unique<decompressing_reader>(std::move(*d)));
}

result<int> make_spool() {
    const char* dir = std::getenv("TMPDIR");
    const std::string folder = dir && *dir ? dir : "/tmp";
    int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    std::string templ = folder + "/rdelta-spool-XXXXXX";  // file systems without O_TMPFILE
    fd = ::mkstemp(templ.data());
    if (fd < 0) return fail(errc::io_error, folder + ": cannot create a temporary file: " + std::strerror(errno));
    ::unlink(templ.c_str());
    return fd;
}

}  // namespace

result<delta_opener> make_delta_opener(const std::string& path) {
    auto first = input_file::open(path);
    if (!first) return std::move(first).err();
    if (!is_std_stream(path) && first->size()) {
        return delta_opener([path]() -> result<std::unique_ptr<byte_source>> {
            auto f = input_file::open(path);
            if (!f) return std::move(f).err();
            return layered(std::make_unique<input_file>(std::move(*f)));
        });
    }
    auto spool = make_spool();
    if (!spool) return std::move(spool).err();
    const auto fd = std::make_shared<const posix_io::unique_fd>(*spool);
    std::vector<std::uint8_t> buf(std::size_t{1} << 20);
    for (;;) {
        auto got = first->read_full(buf);
        if (!got) return std::move(got).err();
        if (const int e = posix_io::write_all(fd->get(), buf.data(), *got))
            return fail(errc::io_error, first->name() + ": cannot copy it to a temporary file: " + std::strerror(e));
        if (*got < buf.size()) break;
    }
    const std::string name = first->name();
    return delta_opener([fd, name]() -> result<std::unique_ptr<byte_source>> {
        return layered(std::make_unique<spool_reader>(fd, name));
    });
}

}  // namespace rdelta::cli
