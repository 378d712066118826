// patch.cpp - applying a delta: a resumable command decoder that copies literal
// data straight from input to output and COPY data straight from the basis to
// output, so memory stays constant whatever the command lengths.
#include "core/aligned_buffer.hpp"
#include "core/exception_guard.hpp"
#include "core/stat_counter.hpp"
#include "format/checksum_trailer.hpp"
#include "format/command_decoder.hpp"
#include "format/netint.hpp"
#include "format/opcodes.hpp"

#include <rdelta/format.hpp>
#include <rdelta/patch.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

namespace rdelta {

namespace {

constexpr std::uint64_t max_basis_offset = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

class patch_job final : public job {
public:
    patch_job(basis_reader& basis, patch_options options) : basis_(basis), options_(std::move(options)) {
        stats_.op = "patch";
    }

    result<job_status> iterate(buffers& io) override {
        if (failed_) return *failed_;
        if (options_.copy_direct && !options_.take_trailer)  // bytes it does not see, it cannot hash
            return *(failed_ = error{errc::param_error, options_.delta_name +
                                                            ": patch_options::copy_direct needs take_trailer (the "
                                                            "job cannot hash what it does not write)"});
        const std::uint8_t* out_before = call_out_start_ = io.next_out;
        auto status = run(io);
        if (!options_.take_trailer) sum_.update(out_before, static_cast<std::size_t>(io.next_out - out_before));
        if (status && *status == job_status::done) status = check_trailer();
        if (!status) failed_ = status.err();
        return status;
    }
    const job_stats& stats() const noexcept override { return stats_; }

private:
    enum class state { magic, command, literal, copy, done };

    result<job_status> run(buffers& io) {
        for (;;) {
            switch (state_) {
                case state::magic:
                case state::command: {
                    if (!gather(io)) return io.eof_in ? truncated() : result<job_status>(job_status::blocked);
                    auto taken = take_header();
                    if (!taken) return std::move(taken).err();
                    if (state_ == state::copy) join_following_copies(io);
                    break;
                }
                case state::literal: {
                    auto complete = copy_literal(io);
                    if (!complete) return std::move(complete).err();
                    if (!*complete) {
                        if (io.avail_out == 0 || !io.eof_in) return job_status::blocked;
                        return truncated();
                    }
                    break;
                }
                case state::copy: {
                    auto direct = copy_direct(io);
                    if (!direct) return std::move(direct).err();
                    if (!*direct) return job_status::blocked;  // the output before it goes first
                    auto copied = copy_from_basis(io);
                    if (!copied) return std::move(copied).err();
                    if (!*copied) return job_status::blocked;
                    break;
                }
                case state::done: {
                    // Bytes after END are ignored, except rdelta's checksum trailer.
                    const std::size_t take = std::min(
                        io.avail_in, detail::max_trailer_size - std::min(after_end_.size(), detail::max_trailer_size));
                    after_end_.insert(after_end_.end(), io.next_in, io.next_in + take);
                    consume(io, io.avail_in);
                    if (after_end_.size() < detail::max_trailer_size && !io.eof_in) return job_status::blocked;
                    return job_status::done;
                }
            }
        }
    }

    void consume(buffers& io, std::size_t n) {
        io.next_in += n, io.avail_in -= n;
        stats_.in_bytes += static_cast<std::int64_t>(n);
    }

    // Bytes the current header needs: 4 for the magic; opcode plus parameters.
    std::size_t header_size() const {
        if (state_ == state::magic) return 4;
        if (have_.empty()) return 1;
        return detail::command_header_size(have_[0]);
    }

    bool gather(buffers& io) {
        for (;;) {
            const std::size_t want = header_size();
            if (have_.size() == want) return true;
            if (io.avail_in == 0) return false;
            const std::size_t take = std::min(want - have_.size(), io.avail_in);
            have_.insert(have_.end(), io.next_in, io.next_in + take);
            consume(io, take);
        }
    }

    result<void> take_header() {
        const std::uint64_t header_offset = static_cast<std::uint64_t>(stats_.in_bytes) - have_.size();
        if (state_ == state::magic) {
            auto ok = detail::check_delta_magic(have_.data());
            have_.clear();
            if (!ok) return error_at(ok.err().code, ok.err().message.c_str());
            state_ = state::command;
            return {};
        }
        auto c = detail::decode_command(have_.data(), header_offset);
        const auto header_bytes = static_cast<std::int64_t>(have_.size());
        have_.clear();
        if (!c) return error_at(c.err().code, c.err().message.c_str());
        command_offset_ = header_offset;
        switch (c->kind) {
            case detail::cmd_kind::end: state_ = state::done; return {};
            case detail::cmd_kind::literal:
                remaining_ = c->len;
                stats_.lit_cmds += 1, detail::add_declared(stats_.lit_bytes, c->len),
                    stats_.lit_cmdbytes += header_bytes;
                state_ = state::literal;
                return {};
            case detail::cmd_kind::copy:
                copy_pos_ = c->pos;
                remaining_ = c->len;
                copy_start_ = copy_pos_;
                direct_declined_ = false;
                stats_.copy_cmds += 1, detail::add_declared(stats_.copy_bytes, c->len),
                    stats_.copy_cmdbytes += header_bytes;
                // No basis holds bytes past 2^63 - 1 (a file offset): such a COPY ends past
                // any basis, whatever the reader would make of the offset.
                if (c->len > max_basis_offset - c->pos) return past_end();
                state_ = state::copy;
                return {};
            case detail::cmd_kind::reserved: break;  // refused by decode_command
        }
        return {};
    }

    // COPYs that go on reading where the current one ends (as a delta of many short
    // matches of one region has them) join it, up to the basis end: one long read
    // instead of a read per command. Their headers are taken when they are whole in
    // the input at hand, and counted as the commands they are; anything else (another
    // command, a header cut by the input's end, a bad one) is left to take_header.
    // Within the basis nothing can fail inside a joined part, so messages stay
    // those of the command that fails.
    void join_following_copies(buffers& io) {
        const auto size = basis_.size();
        if (!size || remaining_ > *size || copy_pos_ > *size - remaining_) return;
        while (io.avail_in > 0) {
            const std::uint8_t op = io.next_in[0];
            if (detail::opcode_table()[op].kind != detail::cmd_kind::copy) return;
            const std::size_t header_bytes = detail::command_header_size(op);
            if (io.avail_in < header_bytes) return;
            auto c = detail::decode_command(io.next_in, static_cast<std::uint64_t>(stats_.in_bytes));
            const std::uint64_t end = copy_pos_ + remaining_;
            if (!c || c->pos != end || c->len > *size - end) return;
            consume(io, header_bytes);
            remaining_ += c->len;
            stats_.copy_cmds += 1, detail::add_declared(stats_.copy_bytes, c->len);
            stats_.copy_cmdbytes += static_cast<std::int64_t>(header_bytes);
        }
    }

    // Bytes of the current command that may be written now: bounded by the output
    // window and by what the output limit still allows (never written past it).
    std::size_t output_room(const buffers& io, std::uint64_t want) const {
        const std::uint64_t allowed = options_.max_output - static_cast<std::uint64_t>(stats_.out_bytes);
        return static_cast<std::size_t>(std::min({want, std::uint64_t{io.avail_out}, allowed}));
    }

    bool at_limit() const noexcept { return static_cast<std::uint64_t>(stats_.out_bytes) >= options_.max_output; }

    error limit_error() const {
        char text[160];
        std::snprintf(text, sizeof text, "output would exceed the limit of %" PRIu64 " bytes", options_.max_output);
        return error_at(errc::mem_error, text);
    }

    // True when the literal is complete, false when input or output ran out.
    result<bool> copy_literal(buffers& io) {
        // At the limit only a byte that really exists is an overrun (else: truncated).
        if (at_limit() && remaining_ > 0) {
            if (io.avail_in > 0) return limit_error();
            return false;
        }
        const std::size_t n = std::min(output_room(io, remaining_), io.avail_in);
        if (n) std::memcpy(io.next_out, io.next_in, n);
        io.next_out += n, io.avail_out -= n;
        consume(io, n);
        remaining_ -= n;
        stats_.out_bytes += static_cast<std::int64_t>(n);
        if (remaining_ == 0)
            state_ = state::command;
        else if (at_limit() && io.avail_in > 0)
            return limit_error();
        return remaining_ == 0;
    }

    // A long COPY goes through options_.copy_direct once the output written before
    // it has left the window (false until then); what it does not take is read
    // from the basis by copy_from_basis().
    result<bool> copy_direct(buffers& io) {
        if (!options_.copy_direct || !options_.take_trailer || direct_declined_ || at_limit() ||
            remaining_ < patch_options::copy_direct_min)
            return true;
        if (io.next_out != call_out_start_) return false;
        const auto out_pos = static_cast<std::uint64_t>(stats_.out_bytes);
        const std::uint64_t want = std::min(remaining_, options_.max_output - out_pos);
        auto copied = options_.copy_direct(copy_pos_, want, out_pos);
        if (!copied) return copied.err();
        const std::uint64_t n = std::min(*copied, want);
        direct_declined_ = n < want;
        copy_pos_ += n, remaining_ -= n;
        stats_.out_bytes += static_cast<std::int64_t>(n);
        return true;
    }

    // true when the COPY is complete, false when output space ran out.
    result<bool> copy_from_basis(buffers& io) {
        while (remaining_ > 0) {
            if (at_limit()) {
                // An overrun only if the basis has the byte; past its end it is 103.
                std::uint8_t probe;
                auto got = basis_.read(copy_pos_, {&probe, 1});
                if (!got) return got.err();
                if (*got == 0) return past_end();
                return limit_error();
            }
            const std::size_t room = output_room(io, remaining_);
            if (room == 0) return false;
            auto got = read_basis(io.next_out, room);
            if (!got) return got.err();  // the reader names the basis itself
            if (*got == 0) return past_end();
            io.next_out += *got, io.avail_out -= *got;
            copy_pos_ += *got, remaining_ -= *got;
            stats_.out_bytes += static_cast<std::int64_t>(*got);
        }
        state_ = state::command;
        return true;
    }

    // A hole of the basis (within its size) is not read: it is zeros. Reads shorter
    // than a block are not worth the query (a system call): reading costs no more.
    result<std::size_t> read_basis(std::uint8_t* out, std::size_t n) {
        constexpr std::size_t hole_query_min = 4096;
        const auto size = basis_.size();
        if (n >= hole_query_min && size && copy_pos_ < *size && n <= *size - copy_pos_ &&
            basis_.is_hole(copy_pos_, n)) {
            std::memset(out, 0, n);
            return n;
        }
        // Up to a cache line first, so that the kernel's copy of the rest is aligned.
        return basis_.read(copy_pos_, {out, detail::read_head(out, n)});
    }

    error past_end() const {
        char text[240];
        const auto size = basis_.size();
        if (size)
            std::snprintf(text, sizeof text,
                          "COPY at offset %" PRIu64 " reads basis bytes %" PRIu64 "..%" PRIu64
                          ", past the end of the basis (%" PRIu64 " bytes)",
                          command_offset_, copy_start_, copy_start_ + (copy_pos_ - copy_start_) + remaining_, *size);
        else
            std::snprintf(text, sizeof text, "COPY at offset %" PRIu64 " reads past the end of the basis at %" PRIu64,
                          command_offset_, copy_pos_);
        return error_at(errc::input_ended, text);
    }

    result<job_status> truncated() const {
        char text[200];
        const char* where = state_ == state::magic     ? "inside its 4-byte magic"
                            : state_ == state::literal ? "inside LITERAL data"
                            : have_.empty()            ? "before the END command"
                                                       : "inside a command";
        std::snprintf(text, sizeof text, "delta is truncated: it ends at byte %" PRId64 ", %s", stats_.in_bytes, where);
        return error_at(errc::input_ended, text);
    }

    result<job_status> check_trailer() {
        if (!detail::is_trailer(after_end_.data(), after_end_.size())) {
            if (options_.require_checksum) return error_at(errc::corrupt, "has no checksum trailer to verify");
            return job_status::done;
        }
        const auto out_len = static_cast<std::uint64_t>(stats_.out_bytes);
        if (options_.take_trailer) {  // the caller hashes what it wrote
            if (detail::trailer_length(after_end_.data()) != out_len)
                return error_at(errc::corrupt, detail::trailer_mismatch(out_len, after_end_.data()).c_str());
            options_.take_trailer({after_end_.data(), detail::trailer_size_at(after_end_.data(), after_end_.size())});
            return job_status::done;
        }
        if (!sum_.matches(after_end_.data(), after_end_.size()))
            return error_at(errc::corrupt, detail::trailer_mismatch(sum_.length(), after_end_.data()).c_str());
        stats_.checksum_verified = true;
        return job_status::done;
    }

    error error_at(errc code, const char* what) const { return fail(code, options_.delta_name + ": " + what); }

    basis_reader& basis_;
    patch_options options_;
    state state_ = state::magic;
    std::vector<std::uint8_t> have_;
    std::uint64_t remaining_ = 0, copy_pos_ = 0, copy_start_ = 0, command_offset_ = 0;
    std::optional<error> failed_;
    const std::uint8_t* call_out_start_ = nullptr;  // io.next_out when iterate() was called
    bool direct_declined_ = false;                  // copy_direct took less of this COPY
    job_stats stats_;
    std::vector<std::uint8_t> after_end_;                         // up to a trailer's worth of bytes after END
    detail::stream_checksum sum_{detail::stream_checksum::both};  // the trailer's form is known at the end
};

}  // namespace

std::unique_ptr<job> make_patch_job(basis_reader& basis, patch_options options) {
    return detail::make_guarded_job("patch", [&] { return std::make_unique<patch_job>(basis, std::move(options)); });
}

}  // namespace rdelta
