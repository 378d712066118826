// test_shrinking_input.cpp - a file that is truncated after it was opened: the
// bytes it no longer has must be found missing, never taken for a hole of zeros.
// SEEK_DATA answers ENXIO both inside a trailing hole and at or past the end.
#include "test_helpers.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/file.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>

#include <doctest/doctest.h>

using namespace rdelta;

namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

using rdelta::test::temp_dir;

// 1 MiB of data, a 1 MiB hole, 2 MiB of data. Shrunk to 1 MiB after it was
// opened, its last 2 MiB are gone: they must not read as zeros.
std::filesystem::path sparse_file(const temp_dir& dir) {
    const auto path = dir.path / "image";
    const auto head = test::random_bytes(mib, 7), tail = test::random_bytes(2 * mib, 9);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::pwrite(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()));
    REQUIRE(::pwrite(fd, tail.data(), tail.size(), 2 * mib) == static_cast<ssize_t>(tail.size()));
    ::close(fd);
    return path;
}

void shrink(const std::filesystem::path& path, std::uint64_t size) {
    std::filesystem::resize_file(path, size);
}

// COPY_N4_N4(0, 4 MiB), END.
test::bytes copy_all_delta() {
    return test::from_hex("727302364f000000000040000000");
}

}  // namespace

TEST_CASE("file_basis::is_hole: a hole inside the file is one, the range past a new end is not") {
    temp_dir dir;
    const auto path = sparse_file(dir);
    auto in = input_file::open(path.string());
    REQUIRE(in.ok());
    file_basis fb(*in, file_basis::origin::file_start);
    CHECK_FALSE(fb.is_hole(0, 64 * 1024));
    const bool fs_reports_holes = fb.is_hole(mib, mib);
    shrink(path, mib);
    CHECK_FALSE(fb.is_hole(mib, 64 * 1024));  // past the end now
    CHECK_FALSE(fb.is_hole(3 * mib, 64 * 1024));
    if (!fs_reports_holes) MESSAGE("the filesystem of the temporary folder reports no holes");
}

TEST_CASE("a patch whose basis shrinks after it was opened fails with input_ended, writing no zeros") {
    temp_dir dir;
    const auto path = sparse_file(dir);
    auto in = input_file::open(path.string());
    REQUIRE(in.ok());
    file_basis fb(*in, file_basis::origin::file_start);
    shrink(path, mib);
    auto job = make_patch_job(fb);
    test::bytes out;
    job_pump pump(*job, [&](std::span<const std::uint8_t> b) -> result<void> {
        out.insert(out.end(), b.begin(), b.end());
        return {};
    });
    const auto delta = copy_all_delta();
    auto status = pump.push(delta, true);
    REQUIRE_FALSE(status.ok());
    CHECK(status.err().code == errc::input_ended);
    CHECK(out.size() <= 2 * mib);  // the bytes it had, and the hole before its old data
}

TEST_CASE("a signature of a file that shrinks after it was opened fails with input_ended") {
    temp_dir dir;
    const auto path = sparse_file(dir);
    auto in = input_file::open(path.string());
    REQUIRE(in.ok());
    file_basis fb(*in);
    shrink(path, mib);
    sig_params params;
    params.block_len = 64 * 1024;
    auto made =
        make_signature_from(fb, 4 * mib, params, {}, [](std::span<const std::uint8_t>) -> result<void> { return {}; });
    REQUIRE_FALSE(made.ok());
    CHECK(made.err().code == errc::input_ended);
}

TEST_CASE("a delta of a new file that shrinks after it was opened fails with input_ended") {
    temp_dir dir;
    const auto path = sparse_file(dir);
    auto in = input_file::open(path.string());
    REQUIRE(in.ok());
    file_basis fb(*in);
    shrink(path, mib);
    sig_params params;
    params.block_len = 64 * 1024;
    signature sig(params);  // one block that matches nothing here: the scan, not the slack path
    REQUIRE(sig.add_block(0x12345678, test::random_bytes(params.strong_len, 8)).ok());
    auto made = make_delta_from(fb, 4 * mib, sig, {}, [](std::span<const std::uint8_t>) -> result<void> { return {}; });
    REQUIRE_FALSE(made.ok());
    CHECK(made.err().code == errc::input_ended);
}
