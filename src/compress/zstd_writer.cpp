// zstd_writer.cpp - libzstd streaming compression (see zstd_writer.hpp).
#include "zstd_writer.hpp"

#include <zstd.h>
#include <zstd_errors.h>
#include <algorithm>
#include <thread>
#include <vector>

namespace rdelta::detail {

struct zstd_writer::context {
    ZSTD_CCtx* cctx = nullptr;
    std::vector<std::uint8_t> out;
    ~context() { ZSTD_freeCCtx(cctx); }
};

namespace {

error zstd_fail(const std::string& name, std::size_t code) {
    if (ZSTD_getErrorCode(code) == ZSTD_error_memory_allocation)
        return fail(errc::mem_error, name + ": out of memory in the zstd compressor");
    return fail(errc::io_error, name + ": zstd compression failed: " + ZSTD_getErrorName(code));
}

}  // namespace

result<std::unique_ptr<zstd_writer>> zstd_writer::open(int level, unsigned threads, std::string name, byte_sink out) {
    std::unique_ptr<zstd_writer> w(new zstd_writer);
    w->ctx_ = std::make_unique<context>();
    w->name_ = std::move(name);
    w->out_ = std::move(out);
    w->ctx_->cctx = ZSTD_createCCtx();
    if (!w->ctx_->cctx) return fail(errc::mem_error, w->name_ + ": out of memory for a zstd compressor");
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    const std::pair<ZSTD_cParameter, int> params[] = {
        {ZSTD_c_compressionLevel, level},
        {ZSTD_c_checksumFlag, 1},
        {ZSTD_c_nbWorkers, static_cast<int>(std::min(threads, 64u))},
    };
    for (const auto& [key, value] : params) {
        const std::size_t r = ZSTD_CCtx_setParameter(w->ctx_->cctx, key, value);
        // A libzstd built without threads refuses workers: compress in this thread.
        if (ZSTD_isError(r) && key != ZSTD_c_nbWorkers) return zstd_fail(w->name_, r);
    }
    w->ctx_->out.resize(ZSTD_CStreamOutSize());
    return w;
}

zstd_writer::~zstd_writer() = default;

result<void> zstd_writer::pump(std::span<const std::uint8_t> bytes, bool end) {
    ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
    for (;;) {
        ZSTD_outBuffer out{ctx_->out.data(), ctx_->out.size(), 0};
        const std::size_t left = ZSTD_compressStream2(ctx_->cctx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left)) return zstd_fail(name_, left);
        if (out.pos > 0)
            if (auto sent = out_({ctx_->out.data(), out.pos}); !sent) return sent;
        if (end ? left == 0 : in.pos == in.size) return {};
    }
}

result<void> zstd_writer::write(std::span<const std::uint8_t> bytes) {
    if (bytes.empty()) return {};
    return pump(bytes, false);
}

result<void> zstd_writer::finish() {
    return pump({}, true);
}

}  // namespace rdelta::detail
