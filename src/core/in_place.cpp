// in_place.cpp - patching a basis file in place: check the whole delta, then write.
//
// The output is written front to back, so the regions already written with new
// data ("dirty") form an increasing list. A COPY is safe when its source avoids
// every dirty region and does not start before its own destination while
// overlapping it (a forward copy would overwrite its own source). A COPY to the
// same offset is a no-op and leaves its region clean.
#include "checksum_trailer.hpp"
#include "command_reader.hpp"

#include <rdelta/in_place.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace rdelta {

namespace {

struct region {
    std::uint64_t from, to;
};

class dirty_regions {
public:
    void add(std::uint64_t from, std::uint64_t to) {
        if (!list_.empty() && list_.back().to == from) list_.back().to = to;
        else list_.push_back({from, to});
    }
    bool intersects(std::uint64_t from, std::uint64_t to) const {
        // First region ending after `from`; regions are sorted and disjoint.
        auto it = std::upper_bound(list_.begin(), list_.end(), from,
                                   [](std::uint64_t v, const region& r) { return v < r.to; });
        return it != list_.end() && it->from < to;
    }

private:
    std::vector<region> list_;
};

constexpr std::size_t chunk_bytes = std::size_t{1} << 20;

error unsafe(const std::string& name, const detail::delta_command& c, std::uint64_t out_pos) {
    char text[260];
    std::snprintf(text, sizeof text,
                  "cannot be applied in place: the COPY at offset %" PRIu64 " reads basis bytes %" PRIu64 "..%" PRIu64
                  " after they are overwritten (output offset %" PRIu64 "); make it with delta --in-place-safe",
                  c.offset, c.pos, c.pos + c.len, out_pos);
    return fail(errc::param_error, name + ": " + text);
}

// Pass 1: decode everything and check it; nothing is written. Feeds the would-be
// output to `sum` when the delta carries a checksum trailer.
result<std::uint64_t> check(std::span<const std::uint8_t> delta, in_place_file& file, const patch_options& options,
                            job_stats& stats, detail::stream_checksum* sum) {
    detail::command_reader reader(delta, options.delta_name);
    if (auto started = reader.start(); !started) return std::move(started).err();
    const std::uint64_t basis_size = file.size();
    dirty_regions dirty;
    std::uint64_t out = 0;
    std::vector<std::uint8_t> buf(sum ? chunk_bytes : 0);
    for (;;) {
        auto c = reader.next();
        if (!c) return std::move(c).err();
        if (c->kind == detail::cmd_kind::end) break;
        if (c->len > options.max_output - out)
            return fail(errc::mem_error, options.delta_name + ": output would exceed the limit");
        if (c->kind == detail::cmd_kind::literal) {
            dirty.add(out, out + c->len);
            if (sum) sum->update(c->data, c->len);
            stats.lit_cmds += 1, stats.lit_bytes += static_cast<std::int64_t>(c->len);
        } else {
            if (c->pos > basis_size || c->len > basis_size - c->pos) {
                char text[200];
                std::snprintf(text, sizeof text, "COPY at offset %" PRIu64 " reads past the end of the basis (%" PRIu64 " bytes)",
                              c->offset, basis_size);
                return fail(errc::input_ended, options.delta_name + ": " + text);
            }
            const bool overlaps_own = c->pos < out && c->pos + c->len > out;
            if (c->pos != out && (dirty.intersects(c->pos, c->pos + c->len) || overlaps_own))
                return unsafe(options.delta_name, *c, out);
            if (c->pos != out) dirty.add(out, out + c->len);
            for (std::uint64_t done = 0; sum && done < c->len;) {  // source bytes are still original
                const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_bytes, c->len - done));
                if (file.is_hole(c->pos + done, n)) {
                    std::fill_n(buf.begin(), n, 0);
                    sum->update(buf.data(), n);
                    done += n;
                    continue;
                }
                auto got = file.read(c->pos + done, {buf.data(), n});
                if (!got) return std::move(got).err();
                if (*got == 0) return fail(errc::input_ended, options.delta_name + ": basis ended while reading");
                sum->update(buf.data(), *got);
                done += *got;
            }
            stats.copy_cmds += 1, stats.copy_bytes += static_cast<std::int64_t>(c->len);
        }
        out += c->len;
    }
    if (sum) {
        const auto rest = reader.rest();
        std::uint8_t expected[detail::trailer_size];
        sum->write_trailer(expected);
        if (!std::equal(expected, expected + detail::trailer_size, rest.begin()))
            return fail(errc::corrupt, options.delta_name + ": the output would not match the delta's checksum trailer: wrong basis or damaged delta");
        stats.checksum_verified = true;
    } else if (options.require_checksum) {
        return fail(errc::corrupt, options.delta_name + ": has no checksum trailer to verify");
    }
    return out;
}

bool all_zero(const std::uint8_t* p, std::size_t n) {
    return n == 0 || (p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0);
}

// Zeros written at `pos`, except over holes: halves are tried until each is a hole
// or small, so a region that is mostly hole costs a few queries per data extent.
result<void> write_zeros(in_place_file& file, std::uint64_t pos, std::span<const std::uint8_t> zeros) {
    constexpr std::size_t small = std::size_t{64} << 10;
    if (file.is_hole(pos, zeros.size())) return {};
    if (zeros.size() <= small) return file.write(pos, zeros);
    const std::size_t half = std::max<std::size_t>(((pos + zeros.size() / 2) & ~std::uint64_t{4095}) - pos, 1);
    if (auto w = write_zeros(file, pos, zeros.first(half)); !w) return w;
    return write_zeros(file, pos + half, zeros.subspan(half));
}

// Write `bytes` at `pos`; zeros leave holes alone (a sparse image stays sparse).
result<void> write_unless_hole(in_place_file& file, std::uint64_t pos, std::span<const std::uint8_t> bytes) {
    if (all_zero(bytes.data(), bytes.size())) return write_zeros(file, pos, bytes);
    return file.write(pos, bytes);
}

// Copy basis[src, src + len) to [dst, dst + len) front to back; safe when src > dst.
// Holes in the source are not read.
result<void> move_forward(in_place_file& file, std::uint64_t src, std::uint64_t dst, std::uint64_t len,
                          std::vector<std::uint8_t>& buf) {
    for (std::uint64_t done = 0; done < len;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), len - done));
        if (file.is_hole(src + done, n)) {
            std::fill_n(buf.begin(), n, 0);
            if (auto w = write_unless_hole(file, dst + done, {buf.data(), n}); !w) return w;
            done += n;
            continue;
        }
        std::size_t got = 0;
        while (got < n) {
            auto r = file.read(src + done + got, {buf.data() + got, n - got});
            if (!r) return std::move(r).err();
            if (*r == 0) return fail(errc::input_ended, "basis ended while copying");
            got += *r;
        }
        if (auto w = file.write(dst + done, {buf.data(), n}); !w) return w;
        done += n;
    }
    return {};
}

}  // namespace

result<job_stats> patch_in_place(std::span<const std::uint8_t> delta, in_place_file& file, const patch_options& options) {
    job_stats stats;
    stats.op = "patch";
    stats.in_bytes = static_cast<std::int64_t>(delta.size());
    // A trailer is verified before anything is written: it needs one extra read.
    detail::command_reader probe(delta, options.delta_name);
    std::unique_ptr<detail::stream_checksum> sum;
    {
        std::uint64_t end_at = 0;
        if (probe.start()) {
            for (;;) {
                auto c = probe.next();
                if (!c || c->kind == detail::cmd_kind::end) break;
            }
            end_at = delta.size() - probe.rest().size();
        }
        const auto rest = delta.subspan(static_cast<std::size_t>(end_at));
        if (end_at > 0 && detail::is_trailer(rest.data(), rest.size())) sum = std::make_unique<detail::stream_checksum>();
    }
    auto out_size = check(delta, file, options, stats, sum.get());
    if (!out_size) return std::move(out_size).err();

    // Pass 2: write. Every check has passed.
    detail::command_reader reader(delta, options.delta_name);
    (void)reader.start();
    std::vector<std::uint8_t> buf(chunk_bytes);
    std::uint64_t out = 0;
    for (;;) {
        auto c = reader.next();
        if (!c || c->kind == detail::cmd_kind::end) break;
        if (c->kind == detail::cmd_kind::literal) {
            if (auto w = write_unless_hole(file, out, {c->data, static_cast<std::size_t>(c->len)}); !w)
                return std::move(w).err();
        } else if (c->pos != out) {
            if (auto m = move_forward(file, c->pos, out, c->len, buf); !m) return std::move(m).err();
        }
        out += c->len;
    }
    if (*out_size != file.size())
        if (auto r = file.resize(*out_size); !r) return std::move(r).err();
    stats.out_bytes = static_cast<std::int64_t>(*out_size);
    return stats;
}

}  // namespace rdelta
