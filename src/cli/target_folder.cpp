// target_folder.cpp - a command's file put in the folder PATH names, entered once
// (target_folder.hpp).
#include "target_folder.hpp"

#include "core/posix_io.hpp"
#include "core/test_hooks.hpp"
#include "fs/path_walk.hpp"
#include "fs/posix_util.hpp"

#include <rdelta/input_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <utility>

namespace rdelta::cli {

namespace {

using posix_io::unique_fd;

constexpr int folder_flags = O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC;

// NAME must stay in the folder: one name, not "." or "..".
bool one_name(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

// Which file argument --name-in-dir applies to (the option table allows it to
// these commands only).
std::size_t target_arg(const request& req) {
    return req.act == action::patch && !req.in_place ? 2 : 0;
}

// PATH names the folder itself rather than a file in it.
bool names_folder(const std::string& path) {
    const auto last = io_detail::split_path(path).second;
    return path.back() == '/' || last == "." || last == "..";
}

// The folder, walked as the library walks a file's name. open_walked() wants a
// last name to open, which "/", "." and "x/.." lack: those are opened step by step.
result<unique_fd> open_folder(const std::string& folder) {
    const bool root = folder.find_first_not_of('/') == std::string::npos;
    if (root || folder == ".") {
        unique_fd fd(::open(root ? "/" : ".", folder_flags));
        if (!fd) return io_detail::io_fail(folder, "cannot open the directory", errno);
        return fd;
    }
    const auto [parent, last] = io_detail::split_path(folder);
    if (last == ".") return open_folder(parent);
    if (last == "..") {
        auto below = open_folder(parent);
        if (!below) return below;
        unique_fd fd(::openat(below->get(), "..", folder_flags));
        if (!fd) return io_detail::io_fail(folder, "cannot open the directory", errno);
        return fd;
    }
    auto walked = io_detail::open_walked(folder, folder_flags, "cannot open the directory");
    if (!walked) return std::move(walked).err();
    return unique_fd(std::exchange(walked->fd, -1));
}

// Why `folder` cannot be entered, in the words push looks for. Its status is read
// by name again here only to choose the words: nothing is opened through it.
error folder_error(const std::string& path, const std::string& folder, error walked) {
    struct stat st {};
    const int err = ::stat(folder.c_str(), &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (err == ENOENT) return fail(errc::io_error, path + ": " + folder_problem_words(folder_problem::missing, folder));
    if (err == ENOTDIR)
        return fail(errc::io_error, path + ": " + folder_problem_words(folder_problem::not_a_folder, folder));
    return walked;
}

// Enter `fd` as the working directory.
result<void> enter(const unique_fd& fd, const std::string& folder) {
    if (::fchdir(fd.get()) != 0) return io_detail::io_fail(folder, "cannot enter the directory", errno);
    return {};
}

// The name to work on, relative to the folder it is in, now the working directory.
result<std::string> resolve(const std::string& path, const std::string& name) {
    const std::string folder = folder_of_target(path);
    auto dir = open_folder(folder);
    if (!dir) return folder_error(path, folder, std::move(dir).err());
    if (auto entered = enter(*dir, folder); !entered) return std::move(entered).err();
    if (names_folder(path)) return name;
    // PATH is a directory, or a symlink to one that the walk may follow: the image
    // goes inside. Anything else (a file, nothing yet) is the file itself, and the
    // command says what is wrong with it, if anything.
    const std::string base = io_detail::split_path(path).second;
    auto inside = io_detail::open_walked(base, folder_flags, "cannot open the directory");
    if (!inside) return base;
    if (auto entered = enter(unique_fd(std::exchange(inside->fd, -1)), path); !entered) return std::move(entered).err();
    return name;
}

// The command's other names (its other files, --history-dir) keep meaning what
// they mean here: relative ones are made absolute before the working directory
// changes.
result<void> anchor_other_names(request& req, std::size_t target) {
    char* here = ::getcwd(nullptr, 0);
    if (!here) return io_detail::io_fail(".", "cannot name the working directory", errno);
    const std::string cwd = here;
    std::free(here);
    const auto anchor = [&](std::string& name) {
        if (!name.empty() && name.front() != '/' && !is_std_stream(name)) name = io_detail::joined(cwd, name);
    };
    for (std::size_t i = 0; i < req.files.size(); ++i)
        if (i != target) anchor(req.files[i]);
    anchor(req.history_dir);
    return {};
}

}  // namespace

std::string folder_of_target(const std::string& path) {
    if (names_folder(path)) {
        std::string folder = path;
        while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
        return folder;
    }
    return io_detail::split_path(path).first;
}

std::string folder_problem_words(folder_problem problem, const std::string& folder) {
    return problem == folder_problem::missing ? "directory " + folder + " does not exist"
                                              : folder + " is not a directory";
}

int enter_target_folder(request& req, const invocation& inv) {
    if (!one_name(req.name_in_dir))
        return report_usage(inv, "--name-in-dir takes one name, without '/', not '" + req.name_in_dir + "'");
    const std::size_t at = target_arg(req);
    const std::string path = file_arg(req, at);
    if (path.empty() || is_std_stream(path))
        return report_usage(inv, std::string("--name-in-dir: ") + action_name(req.act) +
                                     " needs its file as a name, not standard input or output");
    if (auto anchored = anchor_other_names(req, at); !anchored) return report(inv, anchored.err());
    auto name = resolve(path, req.name_in_dir);
    if (!name) return report(inv, name.err());
    req.files[at] = *name;
    // rdelta-test stops here (tests/cli/push_test.py), so that the folder's name
    // can be swapped while the command works in it.
    detail::test_hooks::target_folder_entered();
    return exit_success;
}

}  // namespace rdelta::cli
