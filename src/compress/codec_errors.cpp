// codec_errors.cpp - Boost.iostreams' and the standard library's exceptions,
// classified into error values (codec_errors.hpp).
#include "codec_errors.hpp"

#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/zstd.hpp>

#include <new>
#include <system_error>

namespace rdelta::detail {

namespace io = boost::iostreams;

namespace {

codec_complaint describe(const io::gzip_error& e) {
    const int code = e.error();
    if (code == io::gzip::bad_crc) return {false, "CRC mismatch"};
    if (code == io::gzip::bad_length) return {false, "length mismatch"};
    if (code == io::gzip::bad_header) return {false, "bad header"};
    if (code == io::gzip::bad_footer) return {true, "it ends before its trailer"};
    if (code == io::gzip::bad_method) return {false, "unknown compression method"};
    const int zlib = e.zlib_error_code();
    if (zlib == io::zlib::mem_error) return {false, "out of memory", true};
    if (zlib == io::zlib::buf_error) return {true, "it ends inside the compressed data"};
    if (zlib == io::zlib::data_error) return {false, "invalid deflate data"};
    return {false, "zlib error " + std::to_string(zlib)};
}

codec_complaint describe(const io::bzip2_error& e) {
    const int code = e.error();
    if (code == io::bzip2::unexpected_eof) return {true, "it ends inside the compressed data"};
    if (code == io::bzip2::data_error) return {false, "invalid data (CRC or format)"};
    if (code == io::bzip2::data_error_magic) return {false, "bad magic"};
    if (code == io::bzip2::mem_error) return {false, "out of memory", true};
    return {false, "bzip2 error " + std::to_string(code)};
}

// zstd's own message, without the ": iostream error" the C++ library appends.
codec_complaint describe(const io::zstd_error& e) {
    std::string text = e.what();
    if (const auto colon = text.rfind(": iostream error"); colon != std::string::npos) text.erase(colon);
    // ZSTD_error_memory_allocation; Boost keeps only the text.
    return {false, text, text.starts_with("Allocation error")};
}

const char* verb(direction d) {
    return d == direction::compressing ? "compressing" : "decompressing";
}

error out_of_memory(codec c, const std::string& name, direction d) {
    return fail(errc::mem_error, name + ": out of memory " + verb(d) + " " + codec_name(c) + " data");
}

error classify(codec c, const std::string& name, std::optional<error>& kept, direction d) {
    const std::string failed = name + ": " + verb(d) + " " + codec_name(c) + " data failed: ";
    try {
        throw;
    } catch (const passed_on&) {
        return std::move(*kept);
    } catch (const std::bad_alloc&) {
        return out_of_memory(c, name, d);
    } catch (const io::gzip_error& e) {
        return codec_failure(c, name, d, describe(e));
    } catch (const io::bzip2_error& e) {
        return codec_failure(c, name, d, describe(e));
    } catch (const io::zstd_error& e) {
        return codec_failure(c, name, d, describe(e));
    } catch (const std::ios_base::failure& e) {  // a system_error too: not about threads
        return fail(errc::internal_error, failed + e.what());
    } catch (const std::system_error& e) {  // a thread that could not be started
        return fail(errc::mem_error, name + ": out of memory " + verb(d) + " " + codec_name(c) + " data: " + e.what());
    } catch (const std::exception& e) {
        return fail(errc::internal_error, failed + e.what());
    } catch (...) {
        return fail(errc::internal_error, failed + "unexpected exception");
    }
}

}  // namespace

error codec_failure(codec c, const std::string& name, direction d, const codec_complaint& complaint) {
    if (complaint.out_of_memory) return out_of_memory(c, name, d);
    if (d == direction::compressing)
        return fail(errc::internal_error, name + ": compressing " + codec_name(c) + " data failed: " + complaint.text);
    return fail(
        complaint.truncated ? errc::input_ended : errc::corrupt,
        name + ": " + (complaint.truncated ? "truncated " : "corrupt ") + codec_name(c) + " data: " + complaint.text);
}

error codec_error_from_current_exception(codec c, const std::string& name, std::optional<error>& kept,
                                         direction d) noexcept {
    try {
        return classify(c, name, kept, d);
    } catch (...) {  // not even the message could be allocated
        return error{errc::mem_error, "out of memory"};
    }
}

}  // namespace rdelta::detail
