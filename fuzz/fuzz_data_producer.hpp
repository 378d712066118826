// fuzz_data_producer.hpp - split a fuzz input into parameters and payload.
//
// The same layout as LLVM's FuzzedDataProvider, written out here so that the replay
// builds (g++, no libFuzzer) decode every corpus file exactly as the fuzzers do
// without pulling clang's resource headers into a g++ build:
//
//   * integers are taken from the END of the input, one byte at a time walking
//     backwards; an integer in [lo, hi] takes ceil(bits(hi - lo) / 8) bytes b1, b2, ...
//     (b1 the last byte of the input), raw = (...(b1 << 8 | b2) << 8 ...), and the
//     value is lo + raw % (hi - lo + 1). Missing bytes (input used up) count as 0,
//     so an exhausted input yields lo.
//   * payload bytes are taken from the FRONT.
//
// So a seed is "payload || reversed(parameter bytes)", which is what
// make_seeds.py writes, and a mutation of a parameter rarely shifts the payload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rdelta::fuzz {

class data_producer {
public:
    data_producer(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

    /// Bytes not consumed yet.
    std::size_t remaining() const noexcept { return size_; }

    /// An integer in [lo, hi] (lo <= hi), from the end of the input.
    std::uint64_t integral(std::uint64_t lo, std::uint64_t hi) noexcept {
        const std::uint64_t range = hi - lo;
        std::uint64_t raw = 0;
        for (std::uint64_t left = range; left != 0; left >>= 8) {
            raw <<= 8;
            if (size_ > 0) raw |= data_[--size_];
        }
        if (range == UINT64_MAX) return lo + raw;
        return lo + raw % (range + 1);
    }

    /// Typed convenience over integral().
    template <class T>
    T value(T lo, T hi) noexcept {
        return static_cast<T>(integral(static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi)));
    }

    /// One byte from the end: its low bit.
    bool boolean() noexcept { return integral(0, 255) & 1; }

    /// One of the array's elements.
    template <class T, std::size_t N>
    T pick(const T (&choices)[N]) noexcept {
        return choices[integral(0, N - 1)];
    }

    /// Up to n payload bytes from the front (fewer if the input runs out).
    std::span<const std::uint8_t> bytes(std::size_t n) noexcept {
        if (n > size_) n = size_;
        std::span<const std::uint8_t> out{data_, n};
        data_ += n, size_ -= n;
        return out;
    }

    /// A payload whose length (at most `max`) is an integer taken first from the end.
    std::span<const std::uint8_t> sized_bytes(std::size_t max) noexcept { return bytes(integral(0, max)); }

    /// Everything not consumed yet, as payload.
    std::span<const std::uint8_t> rest() noexcept { return bytes(size_); }

private:
    const std::uint8_t* data_;
    std::size_t size_;
};

}  // namespace rdelta::fuzz
