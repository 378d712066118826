// rdelta/io.hpp - sequential byte sources and sinks that jobs are driven between:
// a file, standard input or output, or a (de)compressor in front of one.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/byte_sink.hpp>
#include <rdelta/error.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rdelta {

/// A sequential input: a file, standard input, or a decompressor reading one.
class RDELTA_API byte_source {
public:
    virtual ~byte_source() = default;
    /// Fill `out` until it is full or the input ends; returns the count (less than
    /// out.size() only at the end).
    virtual result<std::size_t> read_full(std::span<std::uint8_t> out) = 0;
    /// How many bytes the source will deliver, when known in advance.
    virtual std::optional<std::uint64_t> size() const noexcept = 0;
    /// The name errors give the input ("delta.bin", "standard input").
    virtual const std::string& name() const noexcept = 0;
};

/// Bytes held in memory (which must outlive the source), read in order.
class RDELTA_API memory_source final : public byte_source {
public:
    explicit memory_source(std::span<const std::uint8_t> bytes, std::string name = "memory")
        : bytes_(bytes), name_(std::move(name)) {}
    result<std::size_t> read_full(std::span<std::uint8_t> out) override;
    std::optional<std::uint64_t> size() const noexcept override { return bytes_.size(); }
    const std::string& name() const noexcept override { return name_; }

private:
    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
    std::string name_;
};

/// A sink whose bytes are written by a thread of its own, so that writing them (a
/// file, a pipe to ssh) overlaps the work that makes them. Bytes are copied into
/// buffers of `buffer_size`; at most `max_in_flight` wait for the writer, so memory
/// stays bounded and a slow output slows the producer down. `downstream` is called
/// on the writer thread, in order. Its first error is returned by a later write()
/// and by finish(). Without memory for it or a thread, write() calls `downstream`
/// itself. Destroyed before finish(), pending bytes are dropped (the output is not
/// wanted after a failure).
class RDELTA_API background_sink {
public:
    explicit background_sink(byte_sink downstream, std::size_t buffer_size = std::size_t{256} << 10,
                             std::size_t max_in_flight = 8);
    background_sink(const background_sink&) = delete;
    background_sink& operator=(const background_sink&) = delete;
    ~background_sink();

    result<void> write(std::span<const std::uint8_t> bytes);
    /// Write what is pending and stop the thread; the downstream sink has then
    /// received every byte (or the error is returned). Call once, at the end.
    result<void> finish();
    /// A byte_sink calling write(), valid while this object lives.
    byte_sink sink();

    /// The same hand-over with the roles swapped: `produce` runs on a thread of its
    /// own and writes into a sink whose buffers `downstream` receives on the calling
    /// thread. Page cache a write allocates comes first from memory freed on the
    /// writing thread's CPU, and the calling thread is the one most likely still on
    /// the CPU where the process started. Returns the first error of `produce` or
    /// `downstream`. Without a thread, `produce` writes to `downstream` directly.
    static result<void> produce_on_helper(const byte_sink& downstream,
                                          const std::function<result<void>(const byte_sink&)>& produce,
                                          std::size_t buffer_size = std::size_t{256} << 10,
                                          std::size_t max_in_flight = 8);

private:
    struct state;
    std::unique_ptr<state> s_;
};

/// The whole content of an input (a file, standard input, a decompressor), for
/// deltas applied in place.
RDELTA_API result<std::vector<std::uint8_t>> read_whole(byte_source& in);

}  // namespace rdelta
