// replay_main.cpp - runs fuzz inputs through LLVMFuzzerTestOneInput without
// libFuzzer, so `meson test --suite fuzz` replays the checked-in corpora (and
// crash files) with any compiler.
//
// Usage: replay_<target> PATH...   (each PATH a file, or a directory whose regular
// files are replayed in name order; arguments starting with '-' are ignored, so
// libFuzzer-style flags do no harm). A failing input aborts the process, after
// "replaying <file>" names it. Exits 1 if a path is missing or nothing was replayed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace fs = std::filesystem;

namespace {

bool replay_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return false;
    }
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", path.c_str(), bytes.size());
    // Like libFuzzer, hand over a heap copy of exactly the input's size.
    std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
    LLVMFuzzerTestOneInput(data.data(), data.size());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    std::size_t replayed = 0, failed = 0;
    bool ok = true;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (!arg.empty() && arg[0] == '-') continue;
        const fs::path path(arg);
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            std::vector<fs::path> files;
            for (const auto& entry : fs::directory_iterator(path, ec))
                if (entry.is_regular_file()) files.push_back(entry.path());
            std::sort(files.begin(), files.end());
            for (const auto& file : files) (replay_file(file) ? replayed : failed) += 1;
        } else if (fs::is_regular_file(path, ec)) {
            (replay_file(path) ? replayed : failed) += 1;
        } else {
            std::fprintf(stderr, "no such file or directory: %s\n", arg.c_str());
            ok = false;
        }
    }
    std::printf("%zu inputs replayed\n", replayed);
    return ok && failed == 0 && replayed > 0 ? 0 : 1;
}
