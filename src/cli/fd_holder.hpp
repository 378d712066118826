// fd_holder.hpp - a file descriptor closed when it goes out of scope.
#pragma once

#include <unistd.h>
#include <utility>

namespace rdelta::cli {

class fd_holder {
public:
    explicit fd_holder(int fd = -1) noexcept : fd_(fd) {}
    fd_holder(fd_holder&& o) noexcept : fd_(o.release()) {}
    fd_holder& operator=(fd_holder&& o) noexcept {
        reset(o.release());
        return *this;
    }
    fd_holder(const fd_holder&) = delete;
    fd_holder& operator=(const fd_holder&) = delete;
    ~fd_holder() { reset(); }
    int get() const noexcept { return fd_; }
    int release() noexcept { return std::exchange(fd_, -1); }
    void reset(int fd = -1) noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_;
};

}  // namespace rdelta::cli
