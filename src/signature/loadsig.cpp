// loadsig.cpp - parsing signature files, with librsync 2.3.2's checks in its order
// (each header field is checked as soon as it is read), so error codes match rdiff.
#include "core/exception_guard.hpp"
#include "format/netint.hpp"
#include "format/signature_format.hpp"

#include <rdelta/signature.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <optional>

namespace rdelta {

namespace {

class loadsig_job final : public job {
public:
    loadsig_job(signature* out, std::string name, std::optional<std::uint64_t> file_size, bool name_kind)
        : out_(out), name_(std::move(name)), file_size_(file_size), name_kind_(name_kind) {
        stats_.op = "loadsig";
    }

    result<job_status> iterate(buffers& io) override {
        if (failed_) return *failed_;
        while (!done_) {
            if (!fill(io)) {
                if (!io.eof_in) return job_status::blocked;
                auto ended = at_eof();
                if (!ended) return *(failed_ = std::move(ended).err());
                break;
            }
            if (auto step = take_unit(); !step) return *(failed_ = std::move(step).err());
        }
        // Bytes after the last record (at most 3) are ignored, as librsync does.
        stats_.in_bytes += static_cast<std::int64_t>(io.avail_in);
        io.next_in += io.avail_in, io.avail_in = 0;
        return job_status::done;
    }

    const job_stats& stats() const noexcept override { return stats_; }

private:
    enum class unit { magic, block_len, strong_len, weak, strong };

    std::size_t unit_size() const { return state_ == unit::strong ? out_->params().strong_len : 4; }

    // Gather the bytes of the current unit; false if input ran out first.
    bool fill(buffers& io) {
        const std::size_t want = unit_size();
        const std::size_t take = std::min(want - have_.size(), io.avail_in);
        have_.insert(have_.end(), io.next_in, io.next_in + take);
        io.next_in += take, io.avail_in -= take;
        stats_.in_bytes += static_cast<std::int64_t>(take);
        return have_.size() == want;
    }

    error make_error(errc code, const char* what) const { return fail(code, name_ + ": " + what); }

    result<void> at_eof() {
        char text[160];
        if (state_ == unit::weak) {
            done_ = true;  // a clean end, or 1-3 ignored trailing bytes
            return {};
        }
        if (state_ == unit::strong) {
            std::snprintf(text, sizeof text, "signature is truncated: block %zu has %zu of its %u strong-sum bytes",
                          out_->block_count(), have_.size(), out_->params().strong_len);
            return make_error(errc::input_ended, text);
        }
        std::snprintf(text, sizeof text, "signature is truncated: %" PRId64 " bytes, shorter than the 12-byte header",
                      stats_.in_bytes);
        return make_error(errc::input_ended, text);
    }

    result<void> take_unit() {
        const std::uint32_t v = have_.size() >= 4 ? detail::get_be32(have_.data()) : 0;
        char text[200];
        switch (state_) {
            case unit::magic:
                magic_ = v;
                state_ = unit::block_len;
                break;
            case unit::block_len:
                if (static_cast<std::int32_t>(v) < 1) {
                    std::snprintf(text, sizeof text, "block length of %d in the header is bogus",
                                  static_cast<std::int32_t>(v));
                    return header_error(errc::corrupt, text);
                }
                block_len_ = v;
                state_ = unit::strong_len;
                break;
            case unit::strong_len:
                if (auto header = check_header(static_cast<std::int32_t>(v)); !header) return header;
                state_ = unit::weak;
                break;
            case unit::weak:
                weak_ = v;
                state_ = unit::strong;
                break;
            case unit::strong:
                if (auto added = out_->add_block(weak_, have_); !added) return added;
                ++stats_.sig_blocks;
                state_ = unit::weak;
                break;
        }
        have_.clear();
        return {};
    }

    error bad_magic(errc code = errc::bad_magic) const {
        char text[120];
        std::snprintf(text, sizeof text, "bad magic %#x: not a signature%s", magic_,
                      magic_ == static_cast<std::uint32_t>(magic::delta) ? " (it is a delta)" : "");
        return make_error(code, text);
    }

    // A header field librsync judges before the magic: the same code, but a file
    // that is no signature at all is called what it is when the caller asked.
    error header_error(errc code, const char* text) const {
        if (name_kind_ && magic_ != 0 && !format_of_magic(magic_)) return bad_magic(code);
        return make_error(code, text);
    }

    result<void> check_header(std::int32_t strong_len) {
        char text[200];
        if (strong_len < 0 || strong_len > 32) {
            std::snprintf(text, sizeof text, "strong sum length %d in the header is implausible", strong_len);
            return header_error(errc::corrupt, text);
        }
        // Magic 0 means "the default format" to librsync's parameter check, so it loads.
        if (magic_ != 0 && !format_of_magic(magic_)) return bad_magic();
        // strong_len 0 means "the whole digest", as librsync reads it.
        auto resolved = resolve_sig_params({std::nullopt, magic_, block_len_, strong_len});
        if (!resolved) return make_error(resolved.err().code, resolved.err().message.c_str());
        *out_ = signature(resolved->params);
        // Allocate the records once when the file size is known (a hint: never more
        // than the file can hold, so a lying header cannot make it allocate).
        constexpr std::uint64_t header = detail::signature_header_size;
        if (file_size_ && *file_size_ > header && *file_size_ - header <= SIZE_MAX)
            (void)out_->reserve(static_cast<std::size_t>(*file_size_ - header) / resolved->params.record_size());
        stats_.block_len = block_len_;
        return {};
    }

    signature* out_;
    std::string name_;
    std::optional<std::uint64_t> file_size_;
    unit state_ = unit::magic;
    std::vector<std::uint8_t> have_;
    std::uint32_t magic_ = 0, block_len_ = 0, weak_ = 0;
    bool name_kind_ = false;  // a header error of a file that is no signature names its magic
    bool done_ = false;
    std::optional<error> failed_;
    job_stats stats_;
};

}  // namespace

std::unique_ptr<job> make_loadsig_job(signature* out, std::string name, std::optional<std::uint64_t> file_size,
                                      bool name_kind) {
    return detail::make_guarded_job(
        "loadsig", [&] { return std::make_unique<loadsig_job>(out, std::move(name), file_size, name_kind); });
}

}  // namespace rdelta
