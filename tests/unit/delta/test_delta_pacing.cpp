// test_delta_pacing.cpp - delta jobs paced as librsync's (core/job_pacing.hpp), as
// the C API makes them: the library job's bytes, a slack delta's literal bytes taken
// as they go out. tests/capi compares them call by call with librsync's.
#include "delta/delta_job.hpp"
#include "test_helpers.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/patch.hpp>

#include <doctest/doctest.h>

#include <vector>

using namespace rdelta;

namespace {
const delta_options no_trailer{{1}, false};

// A paced delta job, as the C API makes them, run in chunks (test::run_chunked).
test::bytes run_paced(const signature& sig, const test::bytes& in, std::size_t chunk, std::size_t window_size) {
    auto j = detail::make_delta_job_gathering(sig, no_trailer, 0, detail::job_pacing::librsync);
    return test::run_chunked(*j, in, chunk, window_size);
}

signature loaded(const test::bytes& sig_bytes) {
    auto sig = load_signature(sig_bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index().ok());
    return std::move(sig).value();
}
}  // namespace

TEST_CASE("librsync pacing: a delta job gives the library job's bytes in any chunking") {
    const auto basis = test::random_bytes(6000, 21);
    auto next = basis;
    next.insert(next.begin() + 1000, 300, 7);
    next.erase(next.begin() + 4000, next.begin() + 4200);
    for (std::uint32_t m : {0x72730136u, 0x72730147u}) {
        CAPTURE(m);
        auto sig_bytes = make_signature(basis, {m, 64, 8});
        REQUIRE(sig_bytes.ok());
        const signature sig = loaded(*sig_bytes);
        auto whole = make_delta(sig, next, 0, no_trailer);
        REQUIRE(whole.ok());
        for (std::size_t chunk : {std::size_t{1}, std::size_t{64}, std::size_t{1000}, next.size()})
            for (std::size_t window : {std::size_t{1}, std::size_t{13}, std::size_t{64}, std::size_t{1} << 16}) {
                CAPTURE(chunk);
                CAPTURE(window);
                CHECK(run_paced(sig, next, chunk, window) == *whole);
            }
    }
}

TEST_CASE("librsync pacing: an empty signature's delta takes a LITERAL's bytes as they go out") {
    const auto next = test::random_bytes(3000, 22);
    const signature empty(sig_params{0x72730147, 64, 32});
    for (std::size_t chunk : {std::size_t{1}, std::size_t{64}, std::size_t{1000}})
        for (std::size_t window : {std::size_t{1}, std::size_t{13}, std::size_t{1} << 16}) {
            CAPTURE(chunk);
            CAPTURE(window);
            auto j = detail::make_delta_job_gathering(empty, no_trailer, 0, detail::job_pacing::librsync);
            test::bytes out;
            std::vector<std::uint8_t> buf(window);
            std::size_t off = 0;
            for (int guard = 0; guard < 1000000; ++guard) {
                const std::size_t n = std::min(chunk, next.size() - off);
                buffers io{next.data() + off, n, off + n == next.size(), buf.data(), buf.size()};
                auto st = j->iterate(io);
                REQUIRE(st.ok());
                off += n - io.avail_in;
                out.insert(out.end(), buf.data(), io.next_out);
                // Every byte taken is out, after the magic.
                if (off > 0) CHECK(out.size() >= 4 + off);
                if (*st == job_status::done) break;
            }
            // One LITERAL per piece offered when the job was ready for one (at least
            // one per chunk), and nothing but their commands besides the input.
            CHECK(static_cast<std::size_t>(j->stats().lit_cmds) >= (next.size() + chunk - 1) / chunk);
            CHECK(static_cast<std::int64_t>(out.size()) == 4 + j->stats().lit_cmdbytes + 3000 + 1);
            auto rebuilt = apply_patch({}, out);
            REQUIRE(rebuilt.ok());
            CHECK(*rebuilt == next);
        }
}
