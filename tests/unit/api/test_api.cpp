// test_api.cpp - the public API is hard to misuse: sizes are checked, errors
// convert to std::error_code, defaults are the tool's, and drive_job runs any job.
#include <doctest/doctest.h>

#include <rdelta/rdelta.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <system_error>
#include <vector>

using namespace rdelta;

namespace {

std::vector<std::uint8_t> pattern(std::size_t n, unsigned seed) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>((i * 2654435761u + seed) >> 13);
    return v;
}

}  // namespace

TEST_CASE("errc converts to std::error_code") {
    std::error_code ec = errc::corrupt;
    CHECK(ec.value() == 106);
    CHECK(std::string(ec.category().name()) == "rdelta");
    CHECK(ec.message() == "stream corrupt");
    CHECK(fail(errc::mem_error, "x").error_code() == make_error_code(errc::mem_error));
    CHECK(ec != std::error_code(106, std::generic_category()));
}

TEST_CASE("signature::add_block checks the strong sum's length") {
    signature sig{sig_params{0x72730147, 1024, 8}};
    const std::uint8_t eight[8] = {}, four[4] = {}, sixteen[16] = {};
    CHECK(sig.add_block(1, eight));
    auto short_sum = sig.add_block(2, four);
    REQUIRE_FALSE(short_sum);
    CHECK(short_sum.err().code == errc::param_error);
    auto long_sum = sig.add_block(3, sixteen);
    REQUIRE_FALSE(long_sum);
    CHECK(long_sum.err().code == errc::param_error);
    CHECK(sig.block_count() == 1);
    auto huge = sig.reserve(std::size_t{1} << 62);
    REQUIRE_FALSE(huge);
    CHECK(huge.err().code == errc::mem_error);
}

TEST_CASE("defaults are the tool's: recommended parameters, all cores") {
    CHECK(job_options{}.threads == 0);
    for (std::uint64_t size : {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{1} << 20, std::uint64_t{1} << 40}) {
        CAPTURE(size);
        auto resolved = resolve_sig_params({static_cast<std::int64_t>(size), 0, 0, 0});
        REQUIRE(resolved);
        const sig_params p = recommended_sig_params(size);
        CHECK(p.magic == resolved->params.magic);
        CHECK(p.block_len == resolved->params.block_len);
        CHECK(p.strong_len == resolved->params.strong_len);
    }
    CHECK(recommended_sig_params(1 << 20, {weak_kind::rollsum, strong_kind::md4}).strong_len == 16);
}

TEST_CASE("drive_job runs signature, delta and patch between sources and sinks") {
    const auto basis = pattern(300000, 1);
    auto next = basis;
    next.insert(next.begin() + 1000, {9, 9, 9});
    auto collect = [](std::vector<std::uint8_t>& into) {
        return [&into](std::span<const std::uint8_t> b) -> result<void> {
            into.insert(into.end(), b.begin(), b.end());
            return {};
        };
    };
    std::vector<std::uint8_t> sig_bytes, delta, out;
    int progress_calls = 0;
    drive_options small;
    small.chunk = 4096;
    small.progress = [&](const job_stats&) { ++progress_calls; };
    auto sj = make_signature_job(recommended_sig_params(basis.size()));
    memory_source basis_in(basis);
    REQUIRE(drive_job(*sj, basis_in, collect(sig_bytes), small));
    CHECK(progress_calls >= 70);
    CHECK(sig_bytes == *make_signature(basis, recommended_sig_params(basis.size())));

    auto sig = load_signature(sig_bytes);
    REQUIRE(sig);
    REQUIRE(sig->build_index());
    auto dj = make_delta_job(*sig);
    memory_source next_in(next);
    REQUIRE(drive_job(*dj, next_in, collect(delta)));
    memory_basis mb(basis);
    auto pj = make_patch_job(mb);
    memory_source delta_in(delta);
    REQUIRE(drive_job(*pj, delta_in, collect(out)));
    CHECK(out == next);
}

TEST_CASE("memory_source reads in order and knows its size; sizes are optional everywhere") {
    const auto data = pattern(10000, 4);
    memory_source in(data, "piece");
    CHECK(in.size() == std::optional<std::uint64_t>{10000});
    CHECK(in.name() == "piece");
    std::vector<std::uint8_t> got(6000);
    CHECK(in.read_full(got).value() == 6000);
    CHECK(std::equal(got.begin(), got.end(), data.begin()));
    CHECK(in.read_full(got).value() == 4000);
    CHECK(std::equal(got.begin(), got.begin() + 4000, data.begin() + 6000));
    CHECK(in.read_full(got).value() == 0);

    // A stream's unknown size is no size, as a basis_reader's.
    sig_request req;
    CHECK_FALSE(req.basis_size);
    CHECK(resolve_sig_params(req)->params.block_len == stream_block_len);
    req.basis_size = 1 << 20;
    CHECK(resolve_sig_params(req)->params.block_len == recommended_sig_params(1 << 20).block_len);
}

TEST_CASE("a signature loads into a default-constructed one, from a source of known size") {
    const auto basis = pattern(300000, 5);
    const auto bytes = make_signature(basis, recommended_sig_params(basis.size()));
    REQUIRE(bytes);
    signature sig;
    CHECK(sig.block_count() == 0);
    memory_source in(*bytes, "sig");
    auto loader = make_loadsig_job(&sig, in.name(), in.size());
    REQUIRE(drive_job(*loader, in, {}));
    CHECK(sig.params().block_len == recommended_sig_params(basis.size()).block_len);
    CHECK(sig.block_count() == (basis.size() + sig.params().block_len - 1) / sig.params().block_len);
}

TEST_CASE("drive_job can be cancelled, and reports a sink's error") {
    const auto basis = pattern(1 << 20, 2);
    drive_options options;
    options.chunk = 65536;
    int polls = 0;
    options.cancelled = [&] { return ++polls == 3; };
    auto j = make_signature_job(recommended_sig_params(basis.size()));
    memory_source in(basis);
    auto r = drive_job(
        *j, in, [](std::span<const std::uint8_t>) -> result<void> { return {}; }, options);
    REQUIRE_FALSE(r);
    CHECK(r.err().code == errc::io_error);
    CHECK(r.err().message.find("cancelled") != std::string::npos);

    auto j2 = make_signature_job(recommended_sig_params(basis.size()));
    memory_source in2(basis);
    auto full = drive_job(*j2, in2, [](std::span<const std::uint8_t>) -> result<void> {
        return fail(errc::io_error, "out: No space left on device");
    });
    REQUIRE_FALSE(full);
    CHECK(full.err().message == "out: No space left on device");
}

TEST_CASE("a delta job builds the index its options need") {
    const auto basis = pattern(200000, 3);
    auto next = basis;
    std::copy(basis.begin() + 5000, basis.begin() + 9000, next.begin() + 60000);  // a block copied back
    next.insert(next.begin() + 100, {7, 7});
    const auto params = sig_params{0x72730147, 1024, 16};
    auto sig_bytes = make_signature(basis, params);
    REQUIRE(sig_bytes);
    for (bool safe : {false, true}) {
        CAPTURE(safe);
        delta_options options;
        options.in_place_safe = safe;
        auto fresh = load_signature(*sig_bytes);  // no build_index() at all
        REQUIRE(fresh);
        auto without = make_delta(*fresh, next, 0, options);
        REQUIRE(without);
        auto matching = load_signature(*sig_bytes);
        REQUIRE(matching);
        REQUIRE(matching->build_index(safe));
        auto with = make_delta(*matching, next, 0, options);
        REQUIRE(with);
        CHECK(*without == *with);
        auto other = load_signature(*sig_bytes);  // built for the other policy
        REQUIRE(other);
        REQUIRE(other->build_index(!safe));
        auto mismatched = make_delta(*other, next, 0, options);
        REQUIRE(mismatched);
        CHECK(*mismatched == *with);
        auto out = apply_patch(basis, *with);
        REQUIRE(out);
        CHECK(*out == next);
    }
}

TEST_CASE("make_signature_from reports progress through its sink and stops when it fails") {
    const auto data = pattern(3 << 20, 4);
    memory_basis basis(data);
    const auto params = recommended_sig_params(data.size());
    std::vector<std::uint8_t> whole;
    int calls = 0;
    auto done = make_signature_from(basis, data.size(), params, job_options{},
                                    [&](std::span<const std::uint8_t> b) -> result<void> {
                                        ++calls;
                                        whole.insert(whole.end(), b.begin(), b.end());
                                        return {};
                                    });
    REQUIRE(done);
    CHECK(calls >= 2);
    CHECK(whole == *make_signature(data, params));
    int seen = 0;
    auto cancelled = make_signature_from(basis, data.size(), params, job_options{},
                                         [&](std::span<const std::uint8_t>) -> result<void> {
                                             if (++seen == 2) return fail(errc::io_error, "cancelled by the caller");
                                             return {};
                                         });
    REQUIRE_FALSE(cancelled);
    CHECK(cancelled.err().message == "cancelled by the caller");
    CHECK(seen == 2);
}

TEST_CASE("drive_job: end_on_empty_read offers short reads as they come; any out_buffer") {
    // A pipe-like source: at most 1000 bytes per read, then empty reads at the end.
    class trickle final : public byte_source {
    public:
        explicit trickle(std::vector<std::uint8_t> data) : data_(std::move(data)) {}
        result<std::size_t> read_full(std::span<std::uint8_t> out) override {
            const std::size_t k = std::min({out.size(), std::size_t{1000}, data_.size() - at_});
            std::memcpy(out.data(), data_.data() + at_, k);
            at_ += k;
            return k;
        }
        std::optional<std::uint64_t> size() const noexcept override { return std::nullopt; }
        const std::string& name() const noexcept override { return name_; }

    private:
        std::vector<std::uint8_t> data_;
        std::size_t at_ = 0;
        std::string name_ = "pipe";
    };
    const auto data = pattern(25500, 3);
    const signature empty;  // a slack delta: one LITERAL per piece offered
    std::vector<std::uint8_t> expected;
    {
        auto j = make_delta_job(empty);
        job_pump pump(*j, [&](std::span<const std::uint8_t> b) -> result<void> {
            expected.insert(expected.end(), b.begin(), b.end());
            return {};
        });
        for (std::size_t at = 0; at < data.size(); at += 1000)
            REQUIRE(pump.push({data.data() + at, std::min<std::size_t>(1000, data.size() - at)}, false));
        REQUIRE(pump.push({}, true));
    }
    for (std::size_t out_buffer : {std::size_t{1}, std::size_t{7}, std::size_t{1} << 20}) {
        CAPTURE(out_buffer);
        drive_options options;
        options.chunk = 4096;
        options.out_buffer = out_buffer;
        options.end_on_empty_read = true;
        std::vector<std::uint8_t> delta;
        auto j = make_delta_job(empty);
        trickle in(data);
        REQUIRE(drive_job(
            *j, in,
            [&](std::span<const std::uint8_t> b) -> result<void> {
                delta.insert(delta.end(), b.begin(), b.end());
                return {};
            },
            options));
        CHECK(delta == expected);
        CHECK(j->stats().lit_cmds == 26);
    }
}
