// chunk_hasher.cpp - chunk hashes and their root (chunk_hasher.hpp).
#include "chunk_hasher.hpp"

#include "netint.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

namespace rdelta::detail {

namespace {

chunk_hash canonical(XXH128_hash_t h) noexcept {
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, h);
    chunk_hash out;
    std::memcpy(out.data(), c.digest, out.size());
    return out;
}

XXH3_state_t* new_state() {
    XXH3_state_t* s = XXH3_createState();
    if (!s) throw std::bad_alloc();
    XXH3_128bits_reset(s);
    return s;
}

}  // namespace

chunk_hash hash_bytes(const std::uint8_t* p, std::size_t n) noexcept {
    return canonical(XXH3_128bits(p, n));
}

chunk_hash zero_chunk_hash(std::size_t n) {
    // Hashing a whole chunk of zeros once per length keeps a sparse file's holes
    // free; the lengths asked for are the chunk size and a file's last chunk.
    static std::mutex lock;
    static std::size_t cached_len = SIZE_MAX;
    static chunk_hash cached{};
    std::lock_guard hold(lock);
    if (n != cached_len) {
        XXH3_state_t* s = new_state();
        static const std::uint8_t zeros[1 << 16] = {};
        for (std::size_t done = 0; done < n;) {
            const std::size_t k = std::min(sizeof zeros, n - done);
            XXH3_128bits_update(s, zeros, k);
            done += k;
        }
        cached = canonical(XXH3_128bits_digest(s));
        XXH3_freeState(s);
        cached_len = n;
    }
    return cached;
}

chunk_hasher::chunk_hasher(std::uint32_t chunk_size) : chunk_size_(chunk_size), chunk_(new_state()), root_(nullptr) {
    try {
        root_ = new_state();
    } catch (...) {
        XXH3_freeState(chunk_);
        throw;
    }
}

chunk_hasher::~chunk_hasher() {
    XXH3_freeState(chunk_);
    XXH3_freeState(root_);
}

void chunk_hasher::end_chunk(const chunk_hash& h) {
    XXH3_128bits_update(root_, h.data(), h.size());
    if (on_chunk) on_chunk(chunks_, h);
    ++chunks_;
    in_chunk_ = 0;
    XXH3_128bits_reset(chunk_);
}

void chunk_hasher::update(const std::uint8_t* p, std::size_t n) {
    while (n > 0) {
        const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(n, chunk_size_ - in_chunk_));
        XXH3_128bits_update(chunk_, p, k);
        p += k, n -= k;
        in_chunk_ += k, length_ += k;
        if (in_chunk_ == chunk_size_) end_chunk(canonical(XXH3_128bits_digest(chunk_)));
    }
}

void chunk_hasher::update_zeros(std::uint64_t n) {
    static const std::uint8_t zeros[1 << 16] = {};
    while (n > 0) {
        if (in_chunk_ == 0 && n >= chunk_size_) {
            length_ += chunk_size_;
            in_chunk_ = chunk_size_;
            end_chunk(zero_chunk_hash(chunk_size_));
            n -= chunk_size_;
            continue;
        }
        const auto k = static_cast<std::size_t>(std::min<std::uint64_t>({n, chunk_size_ - in_chunk_, sizeof zeros}));
        update(zeros, k);
        n -= k;
    }
}

void chunk_hasher::add_known(const chunk_hash& h, std::uint64_t len) {
    length_ += len;
    end_chunk(h);
}

chunk_hash chunk_hasher::root() {
    if (in_chunk_ > 0) end_chunk(canonical(XXH3_128bits_digest(chunk_)));
    std::uint8_t tail[12];
    put_be(tail, length_, 8);
    put_be(tail + 8, chunk_size_, 4);
    XXH3_128bits_update(root_, tail, sizeof tail);
    return canonical(XXH3_128bits_digest(root_));
}

std::string hash_hex(const chunk_hash& h) {
    static const char digits[] = "0123456789abcdef";
    std::string text;
    for (const std::uint8_t b : h) text += digits[b >> 4], text += digits[b & 15];
    return text;
}

}  // namespace rdelta::detail
