// background_sink.cpp - a sink whose bytes are written by a thread of its own, so
// that writing output (a file's page cache, a pipe) overlaps the work making it.
#include <rdelta/io.hpp>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <optional>
#include <thread>
#include <vector>

namespace rdelta {

// Hidden: nested in an exported class, it would be exported with it (src/librdelta.map).
struct __attribute__((visibility("hidden"))) background_sink::state {
    byte_sink downstream;
    std::size_t buffer_size, max_in_flight;
    std::mutex m;
    std::condition_variable work, space;
    std::deque<std::vector<std::uint8_t>> full;    // handed over, oldest first
    std::vector<std::vector<std::uint8_t>> spare;  // written, for reuse
    std::vector<std::uint8_t> filling;             // the caller's current buffer
    std::size_t in_flight = 0;                     // full plus the one being written
    std::optional<error> failed;                   // the downstream sink's first error
    bool closing = false;
    bool threaded = false;
    std::thread writer;

    void write_loop() {
        std::unique_lock lock(m);
        for (;;) {
            work.wait(lock, [&] { return !full.empty() || closing; });
            if (full.empty()) return;
            std::vector<std::uint8_t> buf = std::move(full.front());
            full.pop_front();
            const bool skip = failed.has_value();
            lock.unlock();
            auto written = skip ? result<void>{} : downstream(buf);
            lock.lock();
            if (!written && !failed) failed = written.err();
            buf.clear();
            spare.push_back(std::move(buf));
            --in_flight;
            // A caller that found every buffer in flight waits until half are free:
            // one wake-up per half queue, not one per buffer written.
            if (in_flight <= low_water() || failed) space.notify_all();
        }
    }

    std::size_t low_water() const noexcept { return max_in_flight / 2; }

    // Queue the filled buffer for the writer, waiting while too many are in flight.
    result<void> hand_over() {
        std::unique_lock lock(m);
        if (in_flight >= max_in_flight) space.wait(lock, [&] { return in_flight <= low_water() || failed; });
        if (failed) return *failed;
        full.push_back(std::move(filling));
        ++in_flight;
        work.notify_one();
        if (!spare.empty()) {
            filling = std::move(spare.back());
            spare.pop_back();
        } else {
            filling = {};
        }
        return {};
    }

    result<void> write(std::span<const std::uint8_t> bytes) {
        while (!bytes.empty()) {
            if (filling.capacity() < buffer_size) filling.reserve(buffer_size);
            const std::size_t n = std::min(bytes.size(), buffer_size - filling.size());
            filling.insert(filling.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
            bytes = bytes.subspan(n);
            if (filling.size() == buffer_size)
                if (auto handed = hand_over(); !handed) return handed;
        }
        return {};
    }

    void stop() {
        {
            std::lock_guard lock(m);
            closing = true;
        }
        work.notify_one();
        writer.join();
        threaded = false;
    }
};

background_sink::background_sink(byte_sink downstream, std::size_t buffer_size, std::size_t max_in_flight) {
    try {
        s_ = std::make_unique<state>();
        s_->downstream = std::move(downstream);
        s_->buffer_size = std::max<std::size_t>(buffer_size, 1);
        s_->max_in_flight = std::max<std::size_t>(max_in_flight, 1);
        s_->writer = std::thread([s = s_.get()] { s->write_loop(); });
        s_->threaded = true;
    } catch (...) {  // no memory or no thread: the bytes are written by the caller
        if (s_) s_->threaded = false;
    }
}

background_sink::~background_sink() {
    if (!s_ || !s_->threaded) return;
    {
        std::lock_guard lock(s_->m);
        s_->full.clear();  // not finished: what is pending is not wanted
    }
    s_->stop();
}

result<void> background_sink::write(std::span<const std::uint8_t> bytes) {
    if (!s_) return fail(errc::mem_error, "out of memory for an output buffer");
    if (!s_->threaded) return s_->downstream(bytes);
    try {
        return s_->write(bytes);
    } catch (const std::bad_alloc&) {
        return fail(errc::mem_error, "out of memory for an output buffer");
    }
}

result<void> background_sink::finish() {
    if (!s_) return fail(errc::mem_error, "out of memory for an output buffer");
    if (!s_->threaded) return {};
    result<void> handed = s_->filling.empty() ? result<void>{} : s_->hand_over();
    s_->stop();
    if (s_->failed) return *s_->failed;
    return handed;
}

result<void> background_sink::produce_on_helper(const byte_sink& downstream,
                                                const std::function<result<void>(const byte_sink&)>& produce,
                                                std::size_t buffer_size, std::size_t max_in_flight) {
    std::unique_ptr<state> s;
    try {
        s = std::make_unique<state>();
        s->downstream = downstream;
    } catch (...) {
        return produce(downstream);
    }
    s->buffer_size = std::max<std::size_t>(buffer_size, 1);
    s->max_in_flight = std::max<std::size_t>(max_in_flight, 1);
    s->threaded = true;
    state* const st = s.get();
    const byte_sink into_queue = [st](std::span<const std::uint8_t> bytes) -> result<void> {
        try {
            return st->write(bytes);
        } catch (const std::bad_alloc&) {
            return fail(errc::mem_error, "out of memory for an output buffer");
        }
    };
    result<void> produced{};
    std::thread helper;
    try {
        helper = std::thread([&produced, &produce, &into_queue, st] {
            try {
                produced = produce(into_queue);
                if (produced && !st->filling.empty()) produced = st->hand_over();
            } catch (...) {
                produced = fail(errc::mem_error, "out of memory for an output buffer");
            }
            {
                std::lock_guard lock(st->m);
                st->closing = true;
            }
            st->work.notify_one();
        });
    } catch (...) {  // no thread: the caller makes and writes the bytes
        return produce(downstream);
    }
    st->write_loop();
    helper.join();
    if (!produced) return produced;
    if (st->failed) return *st->failed;
    return {};
}

byte_sink background_sink::sink() {
    return [this](std::span<const std::uint8_t> bytes) { return write(bytes); };
}

}  // namespace rdelta
