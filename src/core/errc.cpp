// errc.cpp - librsync's rs_strerror() texts and the std::error_category of errc.
#include <rdelta/error.hpp>

namespace rdelta {

const char* errc_text(errc code) noexcept {
    switch (code) {
        case errc::ok: return "OK";
        case errc::blocked: return "blocked waiting for input or output buffers";
        case errc::running: return "still running";
        case errc::io_error: return "IO error";
        case errc::syntax_error: return "bad command line syntax";
        case errc::mem_error: return "out of memory";
        case errc::input_ended: return "unexpected end of input";
        case errc::bad_magic: return "bad magic number at start of stream";
        case errc::unimplemented: return "unimplemented case";
        case errc::corrupt: return "stream corrupt";
        case errc::internal_error: return "library internal error";
        case errc::param_error: break;  // missing from librsync's table
    }
    return "unexplained problem";
}

namespace {

class category final : public std::error_category {
public:
    const char* name() const noexcept override { return "rdelta"; }
    std::string message(int value) const override { return errc_text(static_cast<errc>(value)); }
};

}  // namespace

const std::error_category& rdelta_category() noexcept {
    static const category instance;
    return instance;
}

std::error_code make_error_code(errc code) noexcept {
    return {static_cast<int>(code), rdelta_category()};
}

}  // namespace rdelta
