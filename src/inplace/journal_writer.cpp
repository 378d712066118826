// journal_writer.cpp - the journal's writing side (its layout is
// journal_format, recovery journal_recovery.cpp).
#include "journal_writer.hpp"

#include "format/netint.hpp"

#include <xxhash.h>

#include <sys/random.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstring>

namespace rdelta::detail {

namespace {

std::uint64_t random_nonce() {
    std::uint64_t n = 0;
    if (getrandom(&n, sizeof n, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof n)) {
        const auto t = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
        n = XXH3_64bits_withSeed(&t, sizeof t, static_cast<std::uint64_t>(getpid()));
    }
    return n;
}

std::uint64_t align_down(std::uint64_t v) {
    return v - v % journal_block;
}
std::uint64_t align_up(std::uint64_t v) {
    return v + (journal_block - v % journal_block) % journal_block;
}

}  // namespace

journal_writer::journal_writer(journal_storage& storage, in_place_file& image, std::uint32_t flags)
    : storage_(storage), image_(image) {
    header_.flags = flags;
    header_.nonce = random_nonce();
    header_.old_size = header_.new_size = image.size();
    std::tie(header_.dev, header_.ino) = image.identity();
}

result<void> journal_writer::put(std::span<const std::uint8_t> bytes) {
    if (auto w = storage_.write(end_, bytes); !w) return w;
    end_ += bytes.size(), written_ += bytes.size();
    return {};
}

result<void> journal_writer::begin() {
    if (auto c = storage_.create(); !c) return c;
    // The header area stays zeros (no valid slot) until the first records are durable;
    // only the intent is there from the start.
    std::vector<std::uint8_t> zeros(journal_records_at, 0);
    put_be(zeros.data() + journal_intent_at, header_.flags, 4);
    put_be(zeros.data() + journal_intent_at + 8, header_.nonce, 8);
    end_ = 0;
    return put(zeros);
}

result<void> journal_writer::add_record(std::uint32_t kind, std::uint64_t pos, std::uint64_t len,
                                        std::span<const std::uint8_t> data) {
    std::uint8_t head[journal_record_head];
    put_be(head, kind, 4);
    put_be(head + 4, 0, 4);
    put_be(head + 8, pos, 8);
    put_be(head + 16, len, 8);
    put_be(head + 24, count_, 8);  // its index: a stale record from an older journal cannot pass
    put_be(head + 32, record_checksum(header_.nonce, head, data), 8);
    if (auto w = put(head); !w) return w;
    if (!data.empty())
        if (auto w = put(data); !w) return w;
    ++count_;
    return {};
}

// Writing past an unaligned old end into the block that holds it allocates that
// block, bytes before the old end included: where those were a hole, the hole is
// saved (once), so a rollback, which truncates first, frees the block again. A
// region starting before the old end saves that hole itself (save's hole records
// reach the old end), and old data there needs nothing: the truncation keeps it.
result<void> journal_writer::save_end_block(std::uint64_t pos, std::uint64_t len) {
    const std::uint64_t old_end = header_.old_size, block = align_down(old_end);
    if (end_block_saved_ || old_end == block || pos < old_end || pos >= align_up(old_end) || len == 0) return {};
    end_block_saved_ = true;
    if (image_.extent(block, old_end - block) != std::pair<bool, std::uint64_t>{true, old_end - block}) return {};
    return add_record(record_hole, block, old_end - block, {});
}

result<void> journal_writer::save(std::uint64_t pos, std::uint64_t len) {
    if (auto r = save_end_block(pos, len); !r) return r;
    const std::uint64_t end = std::min(pos + len, header_.old_size);  // beyond: the truncation restores it
    while (pos < end) {
        const auto [hole, run] = image_.extent(pos, end - pos);
        if (run == 0) break;
        if (hole) {
            // A hole is whole blocks: saving the blocks around the run lets a rollback
            // free exactly the blocks that writing into the hole allocated. Widened
            // only where the file says the neighbourhood is hole too (a file system
            // with blocks smaller than 4 KiB keeps its data next to the hole).
            std::uint64_t from = align_down(pos), to = align_up(pos + run);
            if (from < pos && image_.extent(from, pos - from) != std::pair<bool, std::uint64_t>{true, pos - from})
                from = pos;
            const std::uint64_t after = pos + run;
            if (to > after && after < header_.old_size) {
                const std::uint64_t n = std::min(to, header_.old_size) - after;
                if (image_.extent(after, n) != std::pair<bool, std::uint64_t>{true, n}) to = after;
            }
            // A record never reaches past the old end (recovery takes one that does
            // for damage): a hole up to an unaligned end stops there.
            to = std::min(to, header_.old_size);
            if (auto r = add_record(record_hole, from, to - from, {}); !r) return r;
            pos += run;
            continue;
        }
        for (std::uint64_t done = 0; done < run;) {
            const auto n = static_cast<std::size_t>(std::min(run - done, journal_max_record_data));
            buf_.resize(n);
            std::size_t got = 0;
            while (got < n) {
                auto r = image_.read(pos + done + got, {buf_.data() + got, n - got});
                if (!r) return std::move(r).err();
                if (*r == 0)
                    return fail(errc::io_error, storage_.name() + ": the image ended while saving its old bytes");
                got += *r;
            }
            if (auto r = add_record(record_data, pos + done, n, buf_); !r) return r;
            done += n;
        }
        pos += run;
    }
    return {};
}

result<void> journal_writer::write_header() {
    ++header_.seq;
    std::uint8_t bytes[journal_header_size];
    encode_header(header_, bytes);
    // Alternate slots: a torn header write leaves the previous one valid.
    return storage_.write(journal_slot_at[header_.seq % 2], bytes);
}

result<void> journal_writer::make_durable() {
    if (count_ == header_.record_count && published_) return {};
    if (auto s = storage_.sync(); !s) return s;
    // Before the first valid header, so before the image is touched: the note binds
    // the image to this journal's nonce, and recovery replays no other journal. After
    // the first sync: the journal's intent is durable before the note moves the
    // image's change time.
    if (!published_)
        if (auto m = image_.mark_journaled(storage_.name(), header_.nonce); !m) return m;
    header_.records_end = end_, header_.record_count = count_;
    if (auto h = write_header(); !h) return h;
    if (auto s = storage_.sync(); !s) return s;
    syncs_ += 2;
    if (!published_) {
        if (auto s = storage_.sync_folder(); !s) return s;
        published_ = true, ++syncs_;
    }
    return {};
}

result<void> journal_writer::commit(std::uint64_t new_size, point_footer* point) {
    if (auto d = make_durable(); !d) return d;
    if (point) {
        point->records_end = end_, point->record_count = count_;
        std::uint8_t bytes[point_footer_size];
        encode_footer(*point, header_.nonce, bytes);
        if (auto w = storage_.write(end_, bytes); !w) return w;
        written_ += sizeof bytes;
    }
    header_.state = journal_committed, header_.new_size = new_size;
    if (auto h = write_header(); !h) return h;
    ++syncs_;
    return storage_.sync();
}

}  // namespace rdelta::detail
