// rdiff_messages.hpp - rdiff 2.3.2's own stderr lines for the errors it reports
// as text, printed when rdelta runs under the name rdiff (scripts match them).
//
// rdelta's messages say more (which file, what to do); under its own name it
// keeps them. These helpers print rdiff's lines and return its exit status.
#pragma once

#include <rdelta/error.hpp>

#include <string>

namespace rdelta::cli::rdiff_messages {

/// An input that could not be opened (or is a folder), as librsync's rs_file_open
/// or its read of a folder reports it; `basis` for a patch's basis, which rdiff
/// reads only at the first COPY. The reason is found by opening the path again;
/// when that finds none, `e` is reported as failed() does.
int input_failed(const std::string& path, bool basis, const error& e);

/// An output refused by the existence check: "File exists" without --force, or
/// a folder (or an unwritable path) with it; failed(e) when no such reason shows.
int output_refused(const std::string& path, bool force, const error& e);

/// An output that could not be created: rs_file_open's "for write" line, with the
/// reason found by looking at the path again; failed(e) when none shows.
int output_failed(const std::string& path, const error& e);

/// rdiff opens every file before it reads any, so it reports a folder given as an
/// input only after the files that follow it: true when `path` is a folder.
bool is_folder(const std::string& path);

/// rdiff's open of a later input: 0 when it would open (a folder does), else its
/// "for read" line and status 100. "-" always opens.
int check_input(const std::string& path);

/// rdiff's check and open of the output: 0 when both would pass, else its line and
/// status 100. "-" always passes.
int check_output(const std::string& path, bool force);

/// Signature parameters refused (librsync's rs_sig_args: the message is its
/// text), as rdiff reports them: that line, then rdiff's last line.
int sig_args_refused(const error& e);

/// A warning about the signature parameters, as librsync's rs_sig_args prints it.
void sig_args_warning(const std::string& text);

/// Any other failure: rdelta's message, then rdiff's last line
/// "rdiff: Failed, <librsync's text for the code>.".
int failed(const error& e);

}  // namespace rdelta::cli::rdiff_messages
