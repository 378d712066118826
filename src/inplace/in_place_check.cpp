// in_place_check.cpp - the passes of an in-place patch that read the delta
// without writing.
#include "in_place_check.hpp"

#include "core/aligned_buffer.hpp"
#include "core/stat_counter.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>

namespace rdelta::detail {

namespace {

constexpr std::size_t chunk_bytes = std::size_t{1} << 20;

error unsafe(const std::string& name, const delta_command& c, std::uint64_t out_pos) {
    char text[260];
    std::snprintf(text, sizeof text,
                  "cannot be applied in place: the COPY at offset %" PRIu64 " reads basis bytes %" PRIu64 "..%" PRIu64
                  " after they are overwritten (output offset %" PRIu64 ")",
                  c.offset, c.pos, c.pos + c.len, out_pos);
    return fail(errc::param_error, name + ": " + text, remedy::in_place_safe);
}

// The checks every command must pass before (pass 1) and again while (pass 3) it is
// applied: within the output limit and the basis, and safe in place. Pass 3 repeats

}  // namespace

// them so a delta file changed between the passes cannot write unchecked commands.
result<void> check_command(const delta_command& c, std::uint64_t out, std::uint64_t basis_size, dirty_regions& dirty,
                           const patch_options& options) {
    if (c.len > options.max_output - out)
        return fail(errc::mem_error, options.delta_name + ": output would exceed the limit");
    if (c.kind == cmd_kind::literal) {
        dirty.add(out, out + c.len);
        return {};
    }
    if (c.pos > basis_size || c.len > basis_size - c.pos) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "COPY at offset %" PRIu64 " reads past the end of the basis (%" PRIu64 " bytes)", c.offset,
                      basis_size);
        return fail(errc::input_ended, options.delta_name + ": " + text);
    }
    const bool overlaps_own = c.pos < out && c.pos + c.len > out;
    if (c.pos != out && (overlaps_own || (c.pos < out && dirty.intersects(c.pos, c.pos + c.len))))
        return unsafe(options.delta_name, c, out);
    if (c.pos != out) dirty.add(out, out + c.len);
    return {};
}

namespace {

// Basis bytes a run of COPYs reads, hashed in pass 2 once the run ends (source
// bytes are still original then).
struct pending_copy {
    std::uint64_t pos = 0, len = 0;

    result<void> hash(in_place_file& file, std::span<std::uint8_t> buf, stream_checksum& sum,
                      const patch_options& options) {
        for (std::uint64_t done = 0; done < len;) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), len - done));
            if (file.is_hole(pos + done, n)) {
                sum.update_zeros(n);
                done += n;
                continue;
            }
            auto got = file.read(pos + done, {buf.data(), n});
            if (!got) return std::move(got).err();
            if (*got == 0) return fail(errc::input_ended, options.delta_name + ": basis ended while reading");
            sum.update(buf.data(), *got);
            done += *got;
        }
        len = 0;
        return {};
    }
};

}  // namespace

// Pass 1 (sum == nullptr) decodes everything and checks it; pass 2 feeds the would-be
// output to `sum` and compares it with the trailer. Nothing is written.
result<check_result> check(byte_source& in, in_place_file& file, const patch_options& options, job_stats& stats,
                           stream_checksum* sum) {
    command_stream reader(in);
    if (auto started = reader.start(); !started) return std::move(started).err();
    const std::uint64_t basis_size = file.size();
    dirty_regions dirty;
    check_result res;
    std::uint64_t& out = res.out_size;
    const std::size_t buf_size = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_bytes, basis_size + 1));
    auto buf_store = make_aligned_bytes(sum ? buf_size : 0);  // read into
    const std::span<std::uint8_t> buf(buf_store.get(), sum ? buf_size : 0);
    stats = job_stats{};
    stats.op = "patch";
    pending_copy pending;
    for (;;) {
        auto c = reader.next();
        if (!c) return std::move(c).err();
        if (c->kind == cmd_kind::end) break;
        if (auto ok = check_command(*c, out, basis_size, dirty, options); !ok) return std::move(ok).err();
        if (c->kind == cmd_kind::literal) {
            if (sum)
                if (auto h = pending.hash(file, buf, *sum, options); !h) return std::move(h).err();
            while (reader.literal_left() > 0) {
                auto piece = reader.literal_piece(chunk_bytes);
                if (!piece) return std::move(piece).err();
                if (sum) sum->update(piece->data(), piece->size());
            }
            stats.lit_cmds += 1, add_declared(stats.lit_bytes, c->len);
        } else {
            // COPYs that continue one another are hashed as one read.
            if (sum && pending.len > 0 && pending.pos + pending.len != c->pos)
                if (auto h = pending.hash(file, buf, *sum, options); !h) return std::move(h).err();
            if (sum) pending.pos = pending.len > 0 ? pending.pos : c->pos, pending.len += c->len;
            stats.copy_cmds += 1, add_declared(stats.copy_bytes, c->len);
        }
        out += c->len;
    }
    if (sum)
        if (auto h = pending.hash(file, buf, *sum, options); !h) return std::move(h).err();
    res.delta_size = reader.consumed();
    auto rest = reader.after_end(max_trailer_size);
    if (!rest) return std::move(rest).err();
    if (const auto size = trailer_size_at(rest->data(), rest->size()); size != 0) {
        rest->resize(size);
        res.trailer = std::move(*rest);
    }
    if (sum) {
        if (!sum->matches(res.trailer.data(), res.trailer.size()))
            return fail(errc::corrupt, options.delta_name +
                                           ": the output would not match the delta's checksum trailer: "
                                           "wrong basis, damaged delta, or the delta was already applied");
        stats.checksum_verified = true;
    } else if (res.trailer.empty() && options.require_checksum) {
        return fail(errc::corrupt, options.delta_name + ": has no checksum trailer to verify");
    }
    stats.in_bytes = static_cast<std::int64_t>(res.delta_size + res.trailer.size());
    stats.out_bytes = static_cast<std::int64_t>(res.out_size);
    return res;
}

// The delta's checksum trailer, found by decoding the commands only.
result<std::vector<std::uint8_t>> find_trailer(byte_source& in) {
    command_stream reader(in);
    if (auto started = reader.start(); !started) return std::move(started).err();
    for (;;) {
        auto c = reader.next();
        if (!c) return std::move(c).err();
        if (c->kind == cmd_kind::end) break;
    }
    auto rest = reader.after_end(max_trailer_size);
    if (!rest) return std::move(rest).err();
    rest->resize(trailer_size_at(rest->data(), rest->size()));
    return rest;
}

}  // namespace rdelta::detail
