// file_util.cpp - rs_file_open/close/size and rs_file_copy_cb: librsync's stdio
// helpers, with its exit-on-failure behaviour (rdiff relies on it for exit code 100).
#include "capi.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

FILE* rs_file_open(char const* filename, char const* mode, int force) {
    using rdelta::capi::log;
    const bool is_write = mode[0] == 'w';
    if (!filename || std::strcmp(filename, "-") == 0) return is_write ? stdout : stdin;
    if (!force && is_write) {
        // "Exists" means "can be opened for reading", as in librsync (so /dev/null exists).
        if (FILE* f = std::fopen(filename, "rb")) {
            log(RS_LOG_ERR, "rs_file_open", "File exists \"%s\", aborting!", filename);
            std::fclose(f);
            std::exit(RS_IO_ERROR);
        }
    }
    FILE* f = std::fopen(filename, mode);
    if (!f) {
        log(RS_LOG_ERR, "rs_file_open", "Error opening \"%s\" for %s: %s", filename, is_write ? "write" : "read",
            std::strerror(errno));
        std::exit(RS_IO_ERROR);
    }
    return f;
}

int rs_file_close(FILE* file) {
    if (file == stdin || file == stdout) return 0;
    return std::fclose(file);
}

rs_long_t rs_file_size(FILE* file) {
    struct stat st;
    if (fstat(fileno(file), &st) == 0 && S_ISREG(st.st_mode)) return st.st_size;
    return -1;
}

rs_result rs_file_copy_cb(void* arg, rs_long_t pos, size_t* len, void** buf) {
    using rdelta::capi::log;
    FILE* f = static_cast<FILE*>(arg);
    if (fseeko(f, static_cast<off_t>(pos), SEEK_SET)) {
        log(RS_LOG_ERR, "rs_file_copy_cb", "seek failed: %s", std::strerror(errno));
        return RS_IO_ERROR;
    }
    const size_t got = std::fread(*buf, 1, *len, f);
    if (got == 0) {
        if (std::ferror(f)) {
            log(RS_LOG_ERR, "rs_file_copy_cb", "read error: %s", std::strerror(errno));
            return RS_IO_ERROR;
        }
        log(RS_LOG_ERR, "rs_file_copy_cb", "unexpected eof on fd%d", fileno(f));
        return RS_INPUT_ENDED;
    }
    *len = got;
    return RS_DONE;
}
