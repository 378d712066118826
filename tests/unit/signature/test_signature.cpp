// test_signature.cpp - signature bytes, loading, and the loader's error order.
#include "checksum/strong_sum.hpp"
#include "file_with_hole.hpp"
#include "signature/signature_job.hpp"
#include "signature/slice_size.hpp"
#include "test_helpers.hpp"

#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace rdelta;

namespace {
sig_params params(std::uint32_t magic_value, std::uint32_t block, std::uint32_t strong) {
    return {magic_value, block, strong};
}

// make_signature_from() of `file` (`size` bytes), collected in memory.
test::bytes signature_of_file(basis_reader& file, std::uint64_t size, const sig_params& p, unsigned threads) {
    test::bytes out;
    auto made =
        make_signature_from(file, size, p, job_options{threads}, [&](std::span<const std::uint8_t> b) -> result<void> {
            out.insert(out.end(), b.begin(), b.end());
            return {};
        });
    REQUIRE(made.ok());
    return out;
}
}  // namespace

TEST_CASE("worked example: hello world with -b 5 -S 8 in all four formats") {
    const auto hw = test::from_string("hello world\n");
    const char* expected[] = {
        "72730147 00000005 00000008 c9183e85 324dcf027dd4a30a 1093c92d 554aa8b488bd0c2c cc10efd7 40ed0af870f0ebb7",
        "72730137 00000005 00000008 07f802af 324dcf027dd4a30a 06ea027f 554aa8b488bd0c2c 012f00ac 40ed0af870f0ebb7",
        "72730146 00000005 00000008 c9183e85 866437cb7a794bce 1093c92d 12ae78aee760ee2b cc10efd7 e4bc0553811b8e91",
        "72730136 00000005 00000008 07f802af 866437cb7a794bce 06ea027f 12ae78aee760ee2b 012f00ac e4bc0553811b8e91",
    };
    const std::uint32_t magics[] = {0x72730147, 0x72730137, 0x72730146, 0x72730136};
    for (int i = 0; i < 4; ++i) {
        auto sig = make_signature(hw, params(magics[i], 5, 8));
        REQUIRE(sig.ok());
        CHECK(test::to_hex(*sig) == test::to_hex(test::from_hex(expected[i])));
    }
}

TEST_CASE("empty basis gives a header-only signature; abc gives the reference bytes") {
    auto empty = make_signature({}, params(0x72730147, 256, 32));
    REQUIRE(empty.ok());
    CHECK(test::to_hex(*empty) == "727301470000010000000020");
    auto abc = make_signature(test::from_string("abc"), params(0x72730136, 256, 16));
    REQUIRE(abc.ok());
    CHECK(test::to_hex(*abc) == "72730136000001000000001003040183a448017aaf21d8525fc10ae87aa6729d");
}

TEST_CASE("signature output does not depend on chunking") {
    const auto data = test::random_bytes(5000, 5);
    auto whole = make_signature(data, params(0x72730147, 64, 8));
    REQUIRE(whole.ok());
    for (std::size_t chunk : {1u, 7u, 64u, 100u, 4999u}) {
        for (std::size_t out_chunk : {1u, 13u, 4096u}) {
            CAPTURE(chunk);
            CAPTURE(out_chunk);
            auto j = make_signature_job(params(0x72730147, 64, 8));
            CHECK(test::run_chunked(*j, data, chunk, out_chunk) == *whole);
        }
    }
}

TEST_CASE("loading a signature round-trips its records, in any chunking") {
    const auto data = test::random_bytes(1000, 9);
    auto bytes = make_signature(data, params(0x72730146, 100, 5));
    REQUIRE(bytes.ok());
    for (std::size_t chunk : {1u, 3u, 12u, 1000u}) {
        signature sig;
        auto j = make_loadsig_job(&sig, "s");
        test::run_chunked(*j, *bytes, chunk, 16);
        CHECK(sig.params().block_len == 100);
        CHECK(sig.params().strong_len == 5);
        CHECK(sig.block_count() == 10);
        CHECK(j->stats().sig_blocks == 10);
    }
}

TEST_CASE("loader errors in librsync's order") {
    struct bad {
        const char* hex;
        errc code;
    };
    const bad cases[] = {
        {"", errc::input_ended},
        {"727301", errc::input_ended},
        {"72730147", errc::input_ended},
        {"12345678 00000100", errc::input_ended},                       // bad magic but short: 103
        {"72730147 00000000", errc::corrupt},                           // block length 0, even before strong_len
        {"72730147 ffffffff 00000020", errc::corrupt},                  // negative block length
        {"72730147 00000100 00000021", errc::corrupt},                  // strong length 33
        {"72730147 00000100 ffffffff", errc::corrupt},                  // negative strong length
        {"72730148 00000100 00000020", errc::bad_magic},                // unknown magic
        {"72730236 00000100 00000020", errc::bad_magic},                // a delta
        {"72730146 00000100 00000011", errc::param_error},              // MD4 with 17
        {"72730147 00000100 00000002 11223344 aa", errc::input_ended},  // short strong sum
    };
    for (const auto& c : cases) {
        CAPTURE(c.hex);
        auto r = load_signature(test::from_hex(c.hex), "sig.bin");
        REQUIRE(!r.ok());
        CHECK(r.err().code == c.code);
        CHECK(r.err().message.rfind("sig.bin: ", 0) == 0);
    }
}

TEST_CASE("loader accepts magic 0 as the default format, as librsync does") {
    auto zero = load_signature(test::from_hex("00000000 00000100 00000008"));
    REQUIRE(zero.ok());
    CHECK(zero->params().magic == 0x72730147u);
}

TEST_CASE("loader accepts strong length 0 (full digest) and ignores 1-3 trailing bytes") {
    auto full = load_signature(test::from_hex("72730146 00000100 00000000"));
    REQUIRE(full.ok());
    CHECK(full->params().strong_len == 16);
    auto trailing = load_signature(test::from_hex("72730147 00000100 00000002 11223344 aabb 010203"));
    REQUIRE(trailing.ok());
    CHECK(trailing->block_count() == 1);
    CHECK(trailing->weak_sum(0) == 0x11223344u);
}

using test::file_with_hole;

TEST_CASE("make_signature_from: holes and written zeros give the job's signature") {
    // Data, 3 MiB of zeros reported as a hole, 2 MiB of written zeros, data.
    constexpr std::size_t mib = 1 << 20;
    test::bytes basis = test::random_bytes(8 * mib + 12345, 71);
    std::fill_n(basis.begin() + static_cast<std::ptrdiff_t>(mib), 5 * mib, 0);
    for (std::uint32_t m : {0x72730136u, 0x72730147u}) {
        for (std::uint32_t block : {512u, 4096u, 100000u}) {
            for (unsigned threads : {1u, 2u}) {
                CAPTURE(m);
                CAPTURE(block);
                CAPTURE(threads);
                auto expected = make_signature(basis, {m, block, 16});
                REQUIRE(expected.ok());
                file_with_hole file(basis, mib, 4 * mib);
                CHECK(signature_of_file(file, basis.size(), {m, block, 16}, threads) == *expected);
            }
        }
    }
}

TEST_CASE("a thread's slice fills the multi-buffer kernel within the budget") {
    using detail::blocks_per_slice;
    constexpr std::size_t kib = 1 << 10, mib = 1 << 20;
    CHECK(blocks_per_slice(2 * kib, 16, 2, mib) == 512);  // small blocks: one L2's worth
    CHECK(blocks_per_slice(32 * kib, 16, 2, mib) == 32);
    CHECK(blocks_per_slice(256 * kib, 16, 2, mib) == 16);  // 4 blocks would fit the L2
    CHECK(blocks_per_slice(mib, 16, 2, mib) == 16);        // the default for a 1 TiB basis
    CHECK(blocks_per_slice(4 * mib, 16, 2, mib) == 4);     // 2 threads x 4 x 4 MiB: the budget
    CHECK(blocks_per_slice(mib, 16, 64, mib) == 1);        // the budget is shared by all threads
    CHECK(blocks_per_slice(64 * mib, 16, 2, mib) == 1);
    CHECK(blocks_per_slice(mib, 8, 2, mib) == 8);
    for (std::size_t block : {100u, 4096u, 300000u, 1u << 20, 5u << 20}) {
        for (unsigned threads : {1u, 2u, 8u, 128u}) {
            CAPTURE(block);
            CAPTURE(threads);
            const std::size_t n = blocks_per_slice(block, 16, threads, mib);
            CHECK(n >= 1);
            CHECK((n == 1 || n * block <= mib || n * block * threads <= detail::slice_budget));
        }
    }
}

TEST_CASE("gathered blocks: the job in any chunking and the file reader equal a block-by-block signature") {
    // The job hashes blocks from pushes smaller than a multi-buffer call's worth
    // only once it has gathered that many (16 blocks of 2 KiB from pieces of
    // 1500 bytes), and blocks of 128 and 256 KiB a slice for every thread
    // (slice_size.hpp); the file reader reads whole slices. A 1234-byte tail
    // block ends the basis.
    constexpr std::size_t kib = 1 << 10;
    const test::bytes basis = test::random_bytes(6 * (1 << 20) + 1234, 73);
    for (std::uint32_t m : {0x72730147u, 0x72730136u}) {
        for (std::uint32_t block : {2u * kib, 128u * kib, 256u * kib}) {
            CAPTURE(m);
            CAPTURE(block);
            test::bytes expected;
            for (std::size_t at = 0; at < basis.size(); at += block) {
                const std::size_t len = std::min<std::size_t>(block, basis.size() - at);
                auto one = make_signature(std::span(basis).subspan(at, len), {m, block, 16}, job_options{1});
                REQUIRE(one.ok());
                expected.insert(expected.end(), one->begin() + (at == 0 ? 0 : 12), one->end());
            }
            for (unsigned threads : {1u, 3u}) {
                CAPTURE(threads);
                for (std::size_t chunk : {std::size_t{1500}, std::size_t{100000}, basis.size()}) {
                    CAPTURE(chunk);
                    auto j = make_signature_job({m, block, 16}, job_options{threads});
                    CHECK(test::run_chunked(*j, basis, chunk, 64 * kib) == expected);
                }
                file_with_hole file(basis, 0, 0);
                CHECK(signature_of_file(file, basis.size(), {m, block, 16}, threads) == expected);
            }
        }
    }
}

TEST_CASE("the signature job writes each block's record on the call that completes the block, as librsync") {
    // A caller (a backup server driving rs_job_iter) that feeds one block, or one
    // byte, per call and takes the job for idle when no output comes.
    for (const std::uint32_t magic_value : {0x72730147u, 0x72730137u}) {
        const std::uint32_t bl = 1024;
        const sig_params p = params(magic_value, bl, 32);
        const auto data = test::random_bytes(40 * bl + 100, 11);
        auto whole = make_signature(data, p);
        REQUIRE(whole.ok());
        const std::size_t header = 12, record = 4 + 32;
        for (const std::size_t step : {std::size_t{1}, std::size_t{bl}, std::size_t{bl + 7}}) {
            CAPTURE(step);
            auto j = make_signature_job(p, job_options{1});
            test::bytes out;
            std::vector<std::uint8_t> window(1 << 16);
            std::size_t off = 0;
            for (int guard = 0; guard < 1000000; ++guard) {
                const std::size_t n = std::min(step, data.size() - off);
                buffers io{data.data() + off, n, off + n == data.size(), window.data(), window.size()};
                auto st = j->iterate(io);
                REQUIRE(st.ok());
                off += n - io.avail_in;
                out.insert(out.end(), window.data(), io.next_out);
                if (*st == job_status::done) break;
                // Every complete block fed so far has its record out.
                CHECK(out.size() == header + off / bl * record);
            }
            CHECK(out == *whole);
        }
    }
}

TEST_CASE("librsync pacing: the signature job holds at most the header or one record, and gives the same bytes") {
    // As librsync's job, which reads a block only once all it made is out (the C API's).
    const sig_params p = params(0x72730146u, 64, 8);
    const std::size_t header = 12, record = p.record_size();
    const auto data = test::random_bytes(40 * 64 + 30, 12);
    auto whole = make_signature(data, p);
    REQUIRE(whole.ok());
    for (const std::size_t step : {std::size_t{1}, std::size_t{64}, std::size_t{1000}, data.size()})
        for (const std::size_t window_size :
             {std::size_t{1}, std::size_t{5}, record, std::size_t{100}, std::size_t{1} << 16}) {
            CAPTURE(step);
            CAPTURE(window_size);
            auto j = detail::make_signature_job_paced(p, job_options{1}, detail::job_pacing::librsync);
            test::bytes out;
            std::vector<std::uint8_t> window(window_size);
            std::size_t off = 0;
            for (int guard = 0; guard < 1000000; ++guard) {
                const std::size_t n = std::min(step, data.size() - off);
                buffers io{data.data() + off, n, off + n == data.size(), window.data(), window.size()};
                auto st = j->iterate(io);
                REQUIRE(st.ok());
                off += n - io.avail_in;
                out.insert(out.end(), window.data(), io.next_out);
                if (*st == job_status::done) break;
                // Made so far: the header and a record per whole block taken (and for
                // the short last one once all is taken).
                const std::size_t made = header + (off == data.size() ? (off + 63) / 64 : off / 64) * record;
                CHECK(made - out.size() <= std::max(header, record));
            }
            CHECK(out == *whole);
        }
}
