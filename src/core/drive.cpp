// drive.cpp - job_pump and drive_job (rdelta/drive.hpp).
#include <rdelta/drive.hpp>

#include "aligned_buffer.hpp"

#include <algorithm>
#include <new>

namespace rdelta {

job_pump::job_pump(job& j, byte_sink out, std::size_t out_buffer)
    : job_(j), out_(std::move(out)), size_(std::max<std::size_t>(out_buffer, 1)) {
    buf_.reset(new (std::nothrow) std::uint8_t[size_]);
}

result<job_status> job_pump::push(std::span<const std::uint8_t> in, bool eof) {
    if (!buf_) return fail(errc::mem_error, "out of memory for a job's output buffer");
    buffers io{in.data(), in.size(), eof, nullptr, 0};
    for (;;) {
        io.next_out = buf_.get(), io.avail_out = size_;
        auto status = job_.iterate(io);
        const std::size_t produced = size_ - io.avail_out;
        if (produced) {
            if (!out_) return fail(errc::internal_error, "a job with no output produced some");
            if (auto sent = out_({buf_.get(), produced}); !sent) return std::move(sent).err();
        }
        if (!status) return std::move(status).err();
        if (*status == job_status::done) return job_status::done;
        // Everything taken and room to spare: the job wants the next piece.
        if (io.avail_in == 0 && io.avail_out > 0 && !eof) return job_status::blocked;
        if (eof && produced == 0 && io.avail_in == 0)
            return fail(errc::internal_error, "a job made no progress at the end of its input");
    }
}

result<void> drive_job(job& j, byte_source& in, const byte_sink& out, const drive_options& options) {
    std::size_t chunk = std::max<std::size_t>(options.chunk, 1);
    // A small input needs no buffer larger than itself (+1 to see its end).
    if (const auto size = in.size(); size && *size < chunk) chunk = static_cast<std::size_t>(*size) + 1;
    const auto buf = detail::make_aligned_bytes_nothrow(chunk);  // read into: aligned_buffer.hpp says why
    if (!buf) return fail(errc::mem_error, in.name() + ": out of memory for an input buffer");
    job_pump pump(j, out, options.out_buffer);
    for (;;) {
        auto got = in.read_full({buf.get(), chunk});
        if (!got) return std::move(got).err();
        const bool eof = options.end_on_empty_read ? *got == 0 : *got < chunk;
        auto status = pump.push({buf.get(), *got}, eof);
        if (!status) return std::move(status).err();
        if (options.progress) options.progress(j.stats());
        if (*status == job_status::done) return {};
        if (options.cancelled && options.cancelled()) return fail(errc::io_error, in.name() + ": cancelled");
        if (eof) return fail(errc::internal_error, in.name() + ": the job did not finish at the end of its input");
    }
}

}  // namespace rdelta
