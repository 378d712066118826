// file_command.hpp - the steps signature, delta and patch share: files opened and
// checked in rdiff's order (inputs, then the output, then the argument count), so
// exit codes and messages match rdiff's, with nothing created before every check
// passed; outputs created, compressed and published; the job driven with progress.
#pragma once

#include "invocation.hpp"
#include "progress.hpp"

#include <rdelta/compression.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/file.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>

namespace rdelta::cli {

/// The chunk signature and delta read their inputs in.
inline constexpr std::size_t default_chunk = std::size_t{8} << 20;

/// An input argument at `index` that could not be opened; under the name rdiff,
/// rdiff's own lines, after the checks rdiff makes first for a folder.
int report_input(const invocation& inv, const request& req, std::size_t index, const error& e);

/// An output refused by output_file::check(), in rdiff's words under its name.
int report_output_check(const invocation& inv, const std::string& path, bool force, const error& e);

/// An output that could not be created, in rdiff's words under its name.
int report_output_create(const invocation& inv, const std::string& path, const error& e);

/// The output argument at `index`, after the inputs were opened: may it be
/// written, and is it the last argument (rdiff checks in that order)?
int check_output_arg(const request& req, const invocation& inv, std::size_t index, std::string& out_path);

/// -I, -O, -j, --max-output and --max-strong-work within their ranges.
int check_sizes(const request& req, const invocation& inv);

/// Run a job from `in` to `out` (empty: the job writes nothing), reading input
/// in chunks of `chunk` bytes, each filled completely unless the input ends.
result<void> drive(job& j, byte_source& in, const byte_sink& out, std::size_t chunk, progress_meter* meter = nullptr,
                   bool meter_output = false);

/// An output written directly (a device, standard output) that is also one of the
/// inputs would overwrite what is still to be read: refused before anything is written.
int refuse_overwriting_inputs(const invocation& inv, const output_file& out,
                              std::initializer_list<const input_file*> inputs);

/// The output file (or stream) of signature and delta, with --nocache and --fsync.
int create_output(const request& req, const invocation& inv, const std::string& path, std::optional<output_file>& out,
                  std::initializer_list<const input_file*> inputs);

/// The compressor -z, -i or --zstd asks for (codec::none passes bytes through) in
/// front of `to_file`.
result<compressing_writer> open_packer(const request& req, const output_file& out, byte_sink to_file);

/// create_output() and open_packer() in one.
int open_output(const request& req, const invocation& inv, const std::string& path, std::optional<output_file>& out,
                std::optional<compressing_writer>& packed, std::initializer_list<const input_file*> inputs);

/// Put a finished output in place; say which attributes of a replaced file were lost.
int publish(output_file& out, const invocation& inv, bool quiet);

/// The progress line the command line asks for (-q, --progress, --no-progress, a
/// terminal); `size` is the total when known.
std::unique_ptr<progress_meter> make_meter(const request& req, const invocation& inv, const char* label,
                                           std::optional<std::uint64_t> size);

}  // namespace rdelta::cli
