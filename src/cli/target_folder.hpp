// target_folder.hpp - the file a command works on when push names it HOST:PATH:
// PATH itself, or the image's name inside PATH when PATH is a directory, as scp
// and rsync put a file into a directory. Push passes --name-in-dir NAME to the
// rdelta it runs there, which resolves PATH on the side where it is.
//
// The folder is walked once (symlinks followed only as open_walked() follows
// them: owned by root, the caller or the folder's owner) and made the working
// directory, and the command works on a name relative to it. Every later step
// (the file, its journal, its temporary and history files) then resolves from
// that very folder: renaming or swapping the names on the way to it meanwhile
// changes nothing.
#pragma once

#include "invocation.hpp"

#include <string>

namespace rdelta::cli {

/// What is wrong with the folder a file was to be in.
enum class folder_problem { missing, not_a_folder };

/// The folder --name-in-dir enters for `path`: `path` itself when it ends in '/'
/// or names "." or "..", else the folder `path` names a file in ("." for a bare
/// name).
std::string folder_of_target(const std::string& path);

/// The words for `problem` with `folder`: "directory FOLDER does not exist",
/// "FOLDER is not a directory". A command's error is "PATH: " and them, and push
/// looks for them in what the remote side wrote.
std::string folder_problem_words(folder_problem problem, const std::string& folder);

/// For --name-in-dir: the file the command works on (signature's BASIS; patch's
/// NEWFILE, or BASIS with --in-place; recover's IMAGE) resolved as above, the
/// working directory moved into its folder and the argument replaced by the name
/// in it; the command's other relative names made absolute first, so that they
/// still name what they did. 0, or the exit status once the error has been
/// reported.
int enter_target_folder(request& req, const invocation& inv);

}  // namespace rdelta::cli
