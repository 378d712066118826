// output_hash.cpp - the chunked verification of an in-place patch (output_hash.hpp).
//
// A chunk every byte of which a same-offset COPY keeps, and whose extent is the
// same in the old and the new file, is unchanged: with a manifest its hash is
// taken from there instead of reading it. Everything else is hashed from its bytes:
// before the writes from the delta's literals and the basis, after them from the
// image. Both agree with the trailer's root only if the output is the delta's.
#include "output_hash.hpp"

#include "core/aligned_buffer.hpp"
#include "extent_memo.hpp"
#include "format/checksum_trailer.hpp"
#include "format/command_stream.hpp"

#include <algorithm>

namespace rdelta::detail {

namespace {

constexpr std::size_t read_bytes = std::size_t{1} << 20;
constexpr std::size_t entries_per_block = 4096;  // 64 KiB of manifest per read
constexpr std::uint64_t edge_budget = 8192;      // stored zeros read per chunk a COPY of zeros meets
// Chunks whose hashed-or-known bit is kept (32 MiB of bits, 16 TiB of output): past
// it, the check after writing rereads everything rather than hold more.
constexpr std::uint64_t max_tracked_chunks = std::uint64_t{1} << 28;

// Read exactly out.size() bytes of the manifest at `pos`.
bool read_exact(manifest_storage& s, std::uint64_t pos, std::span<std::uint8_t> out) {
    for (std::size_t done = 0; done < out.size();) {
        auto r = s.read(pos + done, out.subspan(done));
        if (!r || *r == 0) return false;
        done += *r;
    }
    return true;
}

// A run of output bytes [out, out + len) read from `src` onward in the basis;
// `unchanged` when the basis already holds them there (src == out then).
struct byte_run {
    std::uint64_t out = 0, src = 0, len = 0;
    bool unchanged = false;
};

class output_hasher {
public:
    output_hasher(in_place_file& file, std::uint64_t old_size, std::uint64_t new_size, const output_hash_options& o)
        : file_(file),
          old_size_(old_size),
          new_size_(new_size),
          options_(o),
          buf_store_(make_aligned_bytes(read_bytes)),
          buf_(buf_store_.get(), read_bytes),
          hashed_(tracked_words(new_size)) {
        if (o.stager) sum_.chunks()->on_chunk = [s = o.stager](std::uint64_t i, const chunk_hash& h) { s->add(i, h); };
        if (o.known) sources_.emplace(*o.known);
    }

    // A COPY's bytes: unchanged where it copies to the same offset, or zeros onto
    // zeros (a sparse image's empty blocks all match one block of zeros); read from
    // the basis otherwise.
    result<void> copy(std::uint64_t out, std::uint64_t pos, std::uint64_t len) {
        const bool unchanged = pos == out || (out + len <= old_size_ &&
                                              reads_zeros(pos, len, sources_ ? &*sources_ : nullptr, source_holes_) &&
                                              reads_zeros(out, len, options_.known, holes_));
        return queue(unchanged ? byte_run{out, out, len, true} : byte_run{out, pos, len, false});
    }

    result<void> flush() {
        auto done = hash_run(run_);
        run_.len = 0;
        return done;
    }
    void literal(std::span<const std::uint8_t> bytes) {
        mark_hashed(sum_.length(), bytes.size());
        sum_.update(bytes.data(), bytes.size());
    }
    stream_checksum& sum() noexcept { return sum_; }
    std::uint64_t bytes_read() const noexcept { return bytes_read_; }
    bool used_known() const noexcept { return used_known_; }
    bool known_failed() const noexcept { return known_failed_; }
    std::vector<std::uint64_t> take_hashed() noexcept { return std::move(hashed_); }

private:
    // Continue the pending run with `r`, or hash the pending one first.
    result<void> queue(const byte_run& r) {
        if (run_.len > 0 && run_.unchanged == r.unchanged && run_.out + run_.len == r.out &&
            run_.src + run_.len == r.src) {
            run_.len += r.len;
            return {};
        }
        if (auto f = flush(); !f) return f;
        run_ = r;
        return {};
    }

    // Whether the stored (not hole) parts of [pos, pos + len) are zeros, reading at
    // most `budget` bytes of them: a file system stores the zeros around the data
    // sharing its blocks.
    bool stored_zeros(std::uint64_t pos, std::uint64_t len, std::uint64_t budget) {
        while (len > 0) {
            const auto [hole, run] = file_.extent(pos, len);
            const std::uint64_t k = std::clamp<std::uint64_t>(run, 1, len);
            if (!hole) {
                if (k > budget) return false;
                budget -= k;
                auto got = file_.read(pos, buf_.first(static_cast<std::size_t>(k)));
                if (!got || *got != k) return false;
                bytes_read_ += k;
                if (std::any_of(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(k),
                                [](std::uint8_t b) { return b != 0; }))
                    return false;
            }
            pos += k, len -= k;
        }
        return true;
    }

    // Whether the basis reads as zeros over [pos, pos + len): holes, chunks the
    // manifest gives as zeros, and a little stored zeros at their edges.
    bool reads_zeros(std::uint64_t pos, std::uint64_t len, manifest_reader* manifest, extent_memo& holes) {
        if (holes.is_hole(pos, len)) return true;
        if (!manifest || known_failed_) return false;
        const std::uint64_t c = manifest->header().chunk_size;
        for (std::uint64_t i = pos / c; i * c < pos + len; ++i) {
            const std::uint64_t from = std::max(pos, i * c), to = std::min(pos + len, (i + 1) * c);
            const auto h = manifest->entry(i);
            if (!h) {
                known_failed_ = true;
                return false;
            }
            const auto chunk_len = static_cast<std::size_t>(std::min<std::uint64_t>(c, old_size_ - i * c));
            if (*h != zero_chunk_hash(chunk_len) && !stored_zeros(from, to - from, edge_budget)) return false;
        }
        return true;
    }

    void mark_hashed(std::uint64_t out, std::uint64_t len) {
        if (len == 0) return;
        const std::uint64_t c = sum_.chunks()->chunk_size();
        for (std::uint64_t i = out / c; i <= (out + len - 1) / c && i / 64 < hashed_.size(); ++i)
            hashed_[i / 64] |= std::uint64_t{1} << (i % 64);
    }

    // A whole chunk starting at `out`, inside the unchanged run ending at `run_end`,
    // whose extent is the same in the old and the new file: its hash from the
    // manifest; 0 when it must be read instead.
    std::uint64_t take_known(std::uint64_t out, std::uint64_t run_end) {
        if (!options_.known || known_failed_ || !sum_.chunks()->at_boundary()) return 0;
        const std::uint64_t c = sum_.chunks()->chunk_size();
        const std::uint64_t end_new = std::min(out + c, new_size_), end_old = std::min(out + c, old_size_);
        if (end_new > run_end || end_new != end_old) return 0;
        auto h = options_.known->entry(out / c);
        if (!h) {
            known_failed_ = true;
            return 0;
        }
        sum_.add_known(*h, end_new - out);
        used_known_ = true;
        return end_new - out;
    }

    result<void> hash_run(const byte_run& r) {
        const std::uint64_t c = sum_.chunks()->chunk_size();
        for (std::uint64_t done = 0; done < r.len;) {
            const std::uint64_t out = r.out + done;
            if (r.unchanged) {
                if (const std::uint64_t k = take_known(out, r.out + r.len); k > 0) {
                    done += k;
                    continue;
                }
            }
            // Up to the next chunk boundary, so that a whole chunk can be known next.
            std::uint64_t n = std::min<std::uint64_t>(r.len - done, buf_.size());
            if (r.unchanged && options_.known) n = std::min(n, c - out % c);
            mark_hashed(out, n);
            if (auto h = hash_bytes_at(r.src + done, static_cast<std::size_t>(n)); !h) return h;
            done += n;
        }
        return {};
    }

    result<void> hash_bytes_at(std::uint64_t pos, std::size_t n) {
        if (holes_.is_hole(pos, n)) {
            sum_.update_zeros(n);
            return {};
        }
        while (n > 0) {
            const auto [hole, run] = file_.extent(pos, n);
            const auto k = static_cast<std::size_t>(std::clamp<std::uint64_t>(run, 1, n));
            if (hole) {
                sum_.update_zeros(k);
                pos += k, n -= k;
                continue;
            }
            auto got = file_.read(pos, buf_.first(k));
            if (!got) return std::move(got).err();
            if (*got == 0) return fail(errc::input_ended, "the file ended while reading it");
            sum_.update(buf_.data(), *got);
            bytes_read_ += *got;
            pos += *got, n -= *got;
        }
        return {};
    }

    std::size_t tracked_words(std::uint64_t new_size) {
        const std::uint64_t chunks = chunk_count(new_size, sum_.chunks()->chunk_size());
        return chunks > max_tracked_chunks ? 0 : static_cast<std::size_t>((chunks + 63) / 64);
    }

    in_place_file& file_;
    const std::uint64_t old_size_, new_size_;
    const output_hash_options& options_;
    aligned_bytes buf_store_;
    std::span<std::uint8_t> buf_;
    stream_checksum sum_{stream_checksum::chunked};
    std::vector<std::uint64_t> hashed_;
    std::optional<manifest_reader> sources_;  // the manifest again, for COPY sources
    extent_memo holes_{file_}, source_holes_{file_};
    byte_run run_;
    std::uint64_t bytes_read_ = 0;
    bool used_known_ = false, known_failed_ = false;
};

}  // namespace

std::optional<manifest_reader> manifest_reader::open(manifest_storage& storage, in_place_file& file,
                                                     std::uint32_t chunk_size, std::uint64_t size,
                                                     bool compare_change_time) {
    std::uint8_t bytes[manifest_header_size];
    manifest_header h;
    if (!read_exact(storage, 0, bytes) || !decode_manifest_header(bytes, h)) return std::nullopt;
    const auto [dev, ino] = file.identity();
    const auto [ctime_s, ctime_ns] = file.change_time();
    if (h.chunk_size != chunk_size || h.length != size || ino == 0 || h.dev != dev || h.ino != ino) return std::nullopt;
    if (compare_change_time && ((ctime_s == 0 && ctime_ns == 0) || h.ctime_s != ctime_s || h.ctime_ns != ctime_ns))
        return std::nullopt;
    // Exactly as long as its chunk count says.
    std::uint8_t probe[1];
    const std::uint64_t end = manifest_header::entry_at(h.chunks());
    if (h.chunks() > 0 && !read_exact(storage, end - 1, probe)) return std::nullopt;
    if (auto past = storage.read(end, probe); !past || *past != 0) return std::nullopt;
    return manifest_reader(storage, h);
}

std::optional<chunk_hash> manifest_reader::entry(std::uint64_t i) {
    if (i >= header_.chunks()) return std::nullopt;
    if (i < first_ || i >= first_ + block_.size() / 16) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(entries_per_block, header_.chunks() - i));
        block_.resize(n * 16);
        first_ = i;
        if (!read_exact(*storage_, manifest_header::entry_at(i), block_)) {
            block_.clear();
            return std::nullopt;
        }
    }
    chunk_hash h;
    std::copy_n(block_.begin() + static_cast<std::ptrdiff_t>((i - first_) * 16), 16, h.begin());
    return h;
}

manifest_stager::manifest_stager(manifest_storage* storage) : storage_(storage) {
    if (storage_ && !storage_->stage()) storage_ = nullptr;
}

void manifest_stager::add(std::uint64_t index, const chunk_hash& h) {
    if (!storage_) return;
    if (pending_.empty()) pending_first_ = index;
    pending_.insert(pending_.end(), h.begin(), h.end());
    if (pending_.size() >= entries_per_block * 16) flush();
}

void manifest_stager::flush() {
    if (storage_ && !pending_.empty() && !storage_->write_staged(manifest_header::entry_at(pending_first_), pending_))
        discard();
    pending_.clear();
}

bool manifest_stager::finish(const manifest_header& header) {
    flush();
    if (!storage_) return false;
    std::uint8_t bytes[manifest_header_size];
    encode_manifest_header(header, bytes);
    if (!storage_->write_staged(0, bytes)) {
        discard();
        return false;
    }
    return true;
}

void manifest_stager::discard() {
    if (storage_) storage_->discard_staged();
    storage_ = nullptr;
    pending_.clear();
}

result<output_hash_result> hash_output(byte_source& delta, in_place_file& file, std::span<const std::uint8_t> trailer,
                                       std::uint64_t old_size, std::uint64_t new_size,
                                       const output_hash_options& options, const patch_options& patch) {
    command_stream reader(delta);
    if (auto started = reader.start(); !started) return std::move(started).err();
    output_hasher hasher(file, old_size, new_size, options);
    std::uint64_t out = 0;
    for (;;) {
        auto c = reader.next();
        if (!c) return std::move(c).err();
        if (c->kind == cmd_kind::end) break;
        if (c->len > new_size - out)
            return fail(errc::corrupt, patch.delta_name + ": changed while it was being applied");
        if (c->kind == cmd_kind::literal) {
            if (auto f = hasher.flush(); !f) return std::move(f).err();
            while (reader.literal_left() > 0) {
                auto piece = reader.literal_piece(read_bytes);
                if (!piece) return std::move(piece).err();
                hasher.literal(*piece);
            }
        } else if (auto q = hasher.copy(out, c->pos, c->len); !q) {
            return std::move(q).err();
        }
        out += c->len;
    }
    if (auto f = hasher.flush(); !f) return std::move(f).err();
    output_hash_result res;
    res.bytes_read = hasher.bytes_read();
    res.used_known = hasher.used_known() && !hasher.known_failed();
    if (hasher.known_failed()) return res;  // not matched: the caller reads everything instead
    res.matches = out == new_size && hasher.sum().matches(trailer.data(), trailer.size());
    res.hashed = hasher.take_hashed();
    return res;
}

namespace {

error would_not_match(const patch_options& patch) {
    return fail(errc::corrupt, patch.delta_name +
                                   ": the output would not match the delta's checksum trailer: "
                                   "wrong basis, damaged delta, or the delta was already applied");
}

}  // namespace

result<output_hash_result> verify_before_writing(const delta_opener& open, in_place_file& file,
                                                 std::span<const std::uint8_t> trailer, std::uint64_t new_size,
                                                 manifest_storage* manifest, manifest_stager& stager,
                                                 const patch_options& patch) {
    const std::uint32_t chunk = trailer_chunk_size(trailer.data());
    std::optional<manifest_reader> known;
    if (manifest) known = manifest_reader::open(*manifest, file, chunk, file.size());
    std::uint64_t bytes_read = 0;
    for (;;) {
        auto in = open();
        if (!in) return std::move(in).err();
        output_hash_options o;
        o.known = known ? &*known : nullptr;
        o.stager = &stager;  // a second pass writes the same entries again
        auto h = hash_output(**in, file, trailer, file.size(), new_size, o, patch);
        if (!h) return h;
        bytes_read += h->bytes_read;
        h->bytes_read = bytes_read;
        if (h->matches) return h;
        if (!known) return would_not_match(patch);
        known.reset();  // a damaged manifest, or a wrong basis: reading everything tells
    }
}

result<std::uint64_t> verify_after_writing(in_place_file& file, std::span<const std::uint8_t> trailer,
                                           std::uint64_t old_size, std::uint64_t new_size, manifest_storage* manifest,
                                           const output_hash_result& before, const patch_options& patch) {
    const std::uint32_t c = trailer_chunk_size(trailer.data());
    std::optional<manifest_reader> known;
    if (manifest && before.used_known && !before.hashed.empty())
        known = manifest_reader::open(*manifest, file, c, old_size, false);
    stream_checksum sum(stream_checksum::chunked);
    auto buf_store = make_aligned_bytes(c);
    std::uint64_t bytes_read = 0;
    extent_memo holes(file);  // the writes are done: one lookup per extent, not per chunk
    for (std::uint64_t i = 0; i < chunk_count(new_size, c); ++i) {
        const std::uint64_t pos = i * c;
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(c, new_size - pos));
        const bool was_hashed = i / 64 < before.hashed.size() && (before.hashed[i / 64] >> (i % 64) & 1);
        if (known && !was_hashed) {
            auto h = known->entry(i);
            if (!h) return fail(errc::io_error, manifest->name() + ": could not be read again");
            sum.add_known(*h, len);
            continue;
        }
        if (holes.is_hole(pos, len)) {  // a chunk in a hole: the zero chunk's hash, nothing read or hashed
            sum.update_zeros(len);
            continue;
        }
        for (std::size_t done = 0; done < len;) {  // holes are not read
            const auto [hole, run] = file.extent(pos + done, len - done);
            const auto k = static_cast<std::size_t>(std::clamp<std::uint64_t>(run, 1, len - done));
            if (hole || file.is_hole(pos + done, k)) {
                std::fill_n(buf_store.get() + done, k, 0);
                done += k;
                continue;
            }
            auto got = file.read(pos + done, {buf_store.get() + done, k});
            if (!got) return std::move(got).err();
            if (*got == 0) return fail(errc::input_ended, patch.delta_name + ": the patched file ended early");
            done += *got;
            bytes_read += *got;
        }
        sum.update(buf_store.get(), len);
    }
    if (!sum.matches(trailer.data(), trailer.size()))
        return fail(errc::corrupt, patch.delta_name + ": " + trailer_mismatch(new_size, trailer.data()));
    return bytes_read;
}

}  // namespace rdelta::detail
