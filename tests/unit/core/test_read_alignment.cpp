// The library's large reads land on a cache line (src/core/aligned_buffer.hpp
// says why): signatures and deltas of random-access files, the input of a driven
// job, and the COPY reads of a patch whatever the output buffer's alignment.
#include "core/aligned_buffer.hpp"
#include "test_helpers.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>

using namespace rdelta;

namespace {

bool on_a_line(const std::uint8_t* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 64 == 0;
}

// Counts the reads of 4 KiB or more, and those of them into a destination that is
// not 64-byte aligned. Called from several threads at once.
class counting_basis final : public basis_reader {
public:
    explicit counting_basis(const test::bytes& bytes) : inner_(bytes) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (out.size() >= 4096) {
            ++large_;
            if (!on_a_line(out.data())) ++misaligned_;
        }
        return inner_.read(pos, out);
    }
    std::optional<std::uint64_t> size() const override { return inner_.size(); }
    std::size_t large() const { return large_; }
    std::size_t misaligned() const { return misaligned_; }

private:
    memory_basis inner_;
    std::atomic<std::size_t> large_{0}, misaligned_{0};
};

class counting_source final : public byte_source {
public:
    explicit counting_source(const test::bytes& bytes) : bytes_(bytes) {}
    result<std::size_t> read_full(std::span<std::uint8_t> out) override {
        if (!on_a_line(out.data())) ++misaligned_;
        const std::size_t k = std::min(out.size(), bytes_.size() - at_);
        std::memcpy(out.data(), bytes_.data() + at_, k);
        at_ += k;
        return k;
    }
    std::optional<std::uint64_t> size() const noexcept override { return bytes_.size(); }
    const std::string& name() const noexcept override { return name_; }
    std::size_t misaligned() const { return misaligned_; }

private:
    const test::bytes& bytes_;
    std::size_t at_ = 0, misaligned_ = 0;
    std::string name_ = "delta";
};

result<void> append_to(test::bytes& out, std::span<const std::uint8_t> b) {
    out.insert(out.end(), b.begin(), b.end());
    return {};
}

}  // namespace

TEST_CASE("aligned buffers start on a cache line; read_head reaches the next line only for long reads") {
    for (std::size_t n : {1u, 63u, 64u, 100000u}) {
        auto p = detail::make_aligned_bytes(n);
        CHECK(on_a_line(p.get()));
    }
    auto p = detail::make_aligned_bytes(8192);
    CHECK(detail::read_head(p.get(), 8000) == 8000);
    CHECK(detail::read_head(p.get() + 16, 8000) == 48);
    CHECK(detail::read_head(p.get() + 63, 8000) == 1);
    CHECK(detail::read_head(p.get() + 16, 4095) == 4095);
}

TEST_CASE("signatures of random-access inputs read into aligned buffers, small blocks and pieces of large ones") {
    const test::bytes data = test::random_bytes(6 << 20, 71);
    for (std::uint32_t block : {2048u, 200000u}) {
        for (unsigned threads : {1u, 2u}) {
            CAPTURE(block);
            CAPTURE(threads);
            counting_basis basis(data);
            test::bytes out;
            auto made = make_signature_from(basis, data.size(), {0x72730147u, block, 32}, job_options{threads},
                                            [&](std::span<const std::uint8_t> b) { return append_to(out, b); });
            REQUIRE(made.ok());
            CHECK(basis.large() > 0);
            CHECK(basis.misaligned() == 0);
            auto whole = make_signature(data, {0x72730147u, block, 32});
            REQUIRE(whole.ok());
            CHECK(out == *whole);
        }
    }
}

TEST_CASE("deltas of random-access inputs read into aligned buffers, with the kept bytes before each chunk") {
    // Pieces of the basis and literal runs over several chunks, so that bytes are kept.
    const test::bytes basis = test::random_bytes(4 << 20, 72);
    test::bytes next;
    for (std::size_t i = 0; next.size() < (20u << 20); ++i) {
        const std::size_t from = (i * 777777) % (basis.size() - 300000), len = 100000 + (i * 31337) % 200000;
        next.insert(next.end(), basis.begin() + static_cast<std::ptrdiff_t>(from),
                    basis.begin() + static_cast<std::ptrdiff_t>(from + len));
        const auto literal = test::random_bytes(1 + (i * 7919) % 40000, i);
        next.insert(next.end(), literal.begin(), literal.end());
    }
    auto sig_bytes = make_signature(basis, {0x72730147u, 2048, 8});
    REQUIRE(sig_bytes.ok());
    auto sig = load_signature(*sig_bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index(false).ok());
    for (unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        counting_basis file(next);
        test::bytes out;
        auto made = make_delta_from(file, next.size(), *sig, delta_options{{threads}},
                                    [&](std::span<const std::uint8_t> b) { return append_to(out, b); });
        REQUIRE(made.ok());
        CHECK(file.large() > 0);
        CHECK(file.misaligned() == 0);
        auto scanned = make_delta(*sig, next, 0, delta_options{{threads}});
        REQUIRE(scanned.ok());
        CHECK(out == *scanned);
    }
}

TEST_CASE("a patch reads COPYs into the output on a cache line after a short head, and its input aligned") {
    const test::bytes basis = test::random_bytes(3 << 20, 73);
    // A literal of 17 bytes, then the whole basis: the COPY starts 17 bytes into the output.
    test::bytes next = test::random_bytes(17, 74);
    next.insert(next.end(), basis.begin(), basis.end());
    auto sig_bytes = make_signature(basis, {0x72730147u, 2048, 8});
    REQUIRE(sig_bytes.ok());
    auto sig = load_signature(*sig_bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index(false).ok());
    auto delta = make_delta(*sig, next);
    REQUIRE(delta.ok());
    counting_basis reader(basis);
    counting_source source(*delta);
    auto j = make_patch_job(reader);
    test::bytes out;
    drive_options options;
    options.chunk = 100000;
    auto done = drive_job(
        *j, source, [&](std::span<const std::uint8_t> b) { return append_to(out, b); }, options);
    REQUIRE(done.ok());
    CHECK(out == next);
    CHECK(reader.large() > 0);
    CHECK(reader.misaligned() == 0);
    CHECK(source.misaligned() == 0);
}
