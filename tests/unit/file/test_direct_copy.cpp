// test_direct_copy.cpp - long COPYs that bypass the patch job's output window
// (patch_options::copy_direct), and the file layer's kernel copy behind it.
#include "test_helpers.hpp"

#include <rdelta/drive.hpp>
#include <rdelta/file.hpp>
#include <rdelta/patch.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <doctest/doctest.h>

using namespace rdelta;

namespace {

void put_be(test::bytes& out, std::uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// A delta of LITERAL_N4 and COPY_N4_N4 commands: {pos, len} copies, or literal text.
struct command {
    std::uint64_t pos = 0, len = 0;
    std::string literal;
};

test::bytes make_delta(const std::vector<command>& commands) {
    test::bytes d = test::from_hex("72730236");
    for (const auto& c : commands) {
        if (!c.literal.empty()) {
            d.push_back(0x43);
            put_be(d, c.literal.size(), 4);
            d.insert(d.end(), c.literal.begin(), c.literal.end());
        } else {
            d.push_back(0x4f);
            put_be(d, c.pos, 4);
            put_be(d, c.len, 4);
        }
    }
    d.push_back(0);
    return d;
}

test::bytes expected_output(const test::bytes& basis, const std::vector<command>& commands) {
    test::bytes out;
    for (const auto& c : commands) {
        if (!c.literal.empty())
            out.insert(out.end(), c.literal.begin(), c.literal.end());
        else
            out.insert(out.end(), basis.begin() + static_cast<long>(c.pos),
                       basis.begin() + static_cast<long>(c.pos + c.len));
    }
    return out;
}

// How the fake direct copier answers: all of a range, half of it, or nothing.
enum class take { all, half, none };

struct patch_run {
    test::bytes out;
    int direct_calls = 0;
    std::uint64_t direct_bytes = 0;
    bool out_of_order = false;
    result<job_status> status = job_status::blocked;
};

// Patches `delta` pushed in 1000-byte pieces through a 4 KiB output window, with a
// copy_direct that appends from `basis` to the same output.
patch_run run_patch(const test::bytes& basis, const test::bytes& delta, take how, patch_options options = {}) {
    patch_run run;
    memory_basis mb(basis);
    options.take_trailer = [](std::span<const std::uint8_t>) {};
    options.copy_direct = [&](std::uint64_t pos, std::uint64_t len, std::uint64_t at) -> result<std::uint64_t> {
        ++run.direct_calls;
        if (at != run.out.size()) run.out_of_order = true;
        std::uint64_t n = how == take::all ? len : how == take::half ? len / 2 : 0;
        n = std::min<std::uint64_t>(n, pos < basis.size() ? basis.size() - pos : 0);
        run.out.insert(run.out.end(), basis.begin() + static_cast<long>(pos),
                       basis.begin() + static_cast<long>(pos + n));
        run.direct_bytes += n;
        return n;
    };
    auto job = make_patch_job(mb, options);
    job_pump pump(
        *job,
        [&](std::span<const std::uint8_t> b) -> result<void> {
            run.out.insert(run.out.end(), b.begin(), b.end());
            return {};
        },
        4096);
    for (std::size_t at = 0; at < delta.size(); at += 1000) {
        const std::size_t n = std::min<std::size_t>(1000, delta.size() - at);
        run.status = pump.push({delta.data() + at, n}, at + n == delta.size());
        if (!run.status) break;
    }
    return run;
}

const test::bytes basis = test::random_bytes(300000, 7);
const std::vector<command> commands = {{0, 0, "head"}, {1000, 100000, ""},   {5, 100, ""},
                                       {0, 0, "mid"},  {200000, 100000, ""}, {3, 70000, ""}};

}  // namespace

TEST_CASE("copy_direct takes long COPYs in output order; the job reads what it declines") {
    const auto delta = make_delta(commands);
    const auto expected = expected_output(basis, commands);
    for (take how : {take::all, take::half, take::none}) {
        CAPTURE(static_cast<int>(how));
        auto run = run_patch(basis, delta, how);
        REQUIRE(run.status.ok());
        CHECK(*run.status == job_status::done);
        CHECK(run.out == expected);
        CHECK_FALSE(run.out_of_order);
        CHECK(run.direct_calls == 3);  // the three COPYs of 64 KiB or more, not the 100-byte one
        CHECK(run.direct_bytes == (how == take::all ? 270000u : how == take::half ? 135000u : 0u));
    }
}

TEST_CASE("copy_direct without take_trailer is refused, not ignored (the job must hash its output)") {
    memory_basis mb(basis);
    patch_options options;
    int calls = 0;
    options.copy_direct = [&](std::uint64_t, std::uint64_t, std::uint64_t) -> result<std::uint64_t> {
        return ++calls, 0u;
    };
    auto out = std::vector<std::uint8_t>{};
    auto job = make_patch_job(mb, options);
    job_pump pump(*job, [&](std::span<const std::uint8_t> b) -> result<void> {
        out.insert(out.end(), b.begin(), b.end());
        return {};
    });
    auto status = pump.push(make_delta(commands), true);
    REQUIRE_FALSE(status.ok());
    CHECK(status.err().code == errc::param_error);
    CHECK(status.err().message.find("take_trailer") != std::string::npos);
    CHECK(out.empty());
    CHECK(calls == 0);
}

TEST_CASE("copy_direct keeps the errors: a COPY past the basis end, the output limit") {
    auto past = run_patch(basis, make_delta({{0, 0, "x"}, {250000, 100000, ""}}), take::all);
    REQUIRE_FALSE(past.status.ok());
    CHECK(past.status.err().code == errc::input_ended);
    CHECK(past.status.err().message.find("past the end of the basis") != std::string::npos);

    patch_options limited;
    limited.max_output = 150000;
    auto over = run_patch(basis, make_delta(commands), take::all, limited);
    REQUIRE_FALSE(over.status.ok());
    CHECK(over.status.err().code == errc::mem_error);
    CHECK(over.out.size() <= 150000);
}

namespace {

using rdelta::test::temp_dir;

void write_at(int fd, const test::bytes& data, off_t at) {
    REQUIRE(::pwrite(fd, data.data(), data.size(), at) == static_cast<ssize_t>(data.size()));
}

// The file at `p`, read back through input_file.
test::bytes read_through_input_file(const std::filesystem::path& p) {
    auto in = input_file::open(p.string());
    REQUIRE(in.ok());
    test::bytes all(static_cast<std::size_t>(in->size().value()));
    REQUIRE(in->read_full(all).ok());
    return all;
}

// Whether the filesystem reports the basis's hole (SEEK_HOLE before its end).
bool fs_has_holes(const std::filesystem::path& p) {
    const int fd = ::open(p.c_str(), O_RDONLY);
    const off_t hole = ::lseek(fd, 0, SEEK_HOLE);
    const off_t end = ::lseek(fd, 0, SEEK_END);
    ::close(fd);
    return hole >= 0 && hole < end;
}

}  // namespace

TEST_CASE("direct_file_copy: a patch between files copies in the kernel and keeps the basis's holes") {
    temp_dir dir;
    const auto basis_path = dir.path / "basis";
    constexpr std::size_t mib = std::size_t{1} << 20;
    const auto head = test::random_bytes(mib, 1), tail = test::random_bytes(mib, 2);
    {
        const int fd = ::open(basis_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        REQUIRE(fd >= 0);
        write_at(fd, head, 0);
        write_at(fd, tail, 2 * mib);  // a 1 MiB hole in between
        ::close(fd);
    }
    test::bytes whole(3 * mib, 0);
    std::copy(head.begin(), head.end(), whole.begin());
    std::copy(tail.begin(), tail.end(), whole.begin() + 2 * mib);
    const std::vector<command> cmds = {{0, 0, "new"}, {0, 3 * mib, ""}, {0, 0, "end"}};
    const auto delta = make_delta(cmds);

    for (bool sparse : {true, false}) {
        CAPTURE(sparse);
        auto basis_in = input_file::open(basis_path.string());
        REQUIRE(basis_in.ok());
        file_basis fb(*basis_in, file_basis::origin::file_start);
        const auto out_path = dir.path / (sparse ? "sparse" : "dense");
        auto out = output_file::create(out_path.string());
        REQUIRE(out.ok());
        out->set_sparse(sparse);
        patch_options options;
        options.take_trailer = [](std::span<const std::uint8_t>) {};
        options.copy_direct = direct_file_copy(fb, *out);
        auto job = make_patch_job(fb, options);
        job_pump pump(*job, out->sink());
        auto status = pump.push(delta, true);
        REQUIRE(status.ok());
        CHECK(*status == job_status::done);
        REQUIRE(out->commit().ok());
        CHECK(read_through_input_file(out_path) == expected_output(whole, cmds));
        if (sparse && fs_has_holes(basis_path)) {  // the copied hole is one (but for its edge blocks)
            const int fd = ::open(out_path.c_str(), O_RDONLY);
            CHECK(::lseek(fd, static_cast<off_t>(mib + 4096), SEEK_DATA) == static_cast<off_t>(2 * mib));
            ::close(fd);
        }
    }
}

TEST_CASE("output_file::append_copy declines a stream and an output not at the given offset") {
    temp_dir dir;
    const auto src = dir.path / "src";
    {
        const int fd = ::open(src.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        write_at(fd, test::random_bytes(100000, 3), 0);
        ::close(fd);
    }
    const int from = ::open(src.c_str(), O_RDONLY);
    auto stream = output_file::create("/dev/null", true);
    REQUIRE(stream.ok());
    auto none = stream->append_copy(from, 0, 100000, 0);
    REQUIRE(none.ok());
    CHECK(*none == 0);

    auto file = output_file::create((dir.path / "out").string());
    REQUIRE(file.ok());
    auto wrong_place = file->append_copy(from, 0, 100000, 5);
    REQUIRE(wrong_place.ok());
    CHECK(*wrong_place == 0);
    auto copied = file->append_copy(from, 0, 200000, 0);  // the source ends at 100000
    REQUIRE(copied.ok());
    CHECK(*copied == 100000);
    ::close(from);
}
