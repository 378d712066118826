// output_file_state.hpp - what an output_file holds (rdelta/output_file.hpp keeps it
// behind a pointer): its descriptors, names and positions.
#pragma once

#include "output_target.hpp"

#include <rdelta/output_file.hpp>

#include <cstdint>
#include <string>

namespace rdelta {

// Hidden: nested in an exported class, it would be exported with it (src/librdelta.map).
struct __attribute__((visibility("hidden"))) output_file::state {
    int fd_ = -1;         // what is written: the stream, or the temporary file
    int target_fd_ = -1;  // the existing file rewritten in its inode
    io_detail::output_kind kind_ = io_detail::output_kind::stream;
    std::string path_, temp_, name_, warning_;
    std::uint64_t pos_ = 0;          // bytes of output so far (holes included)
    std::uint64_t dropped_to_ = 0;   // --nocache: pages before this were dropped
    std::uint64_t flushing_to_ = 0;  // writeback started up to here
    bool force_ = false, sparse_ = false, nocache_ = false, durable_ = false;
    bool no_direct_copy_ = false;                // the kernel refused a copy_file_range
    bool unnamed_ = false;                       // fd_ is an O_TMPFILE file: nothing to remove if the run dies
    std::string staging_folder_;                 // rewrite_inode: where the complete output is named before the rewrite
    std::string pending_;                        // rewrite_inode: the name it takes there, which recovery finds
    int data_fd_ = -1;                           // append_copy: the data run of data_fd_ found last,
    std::uint64_t data_from_ = 0, data_to_ = 0;  // [data_from_, data_to_)
};

}  // namespace rdelta
