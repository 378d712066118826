// test_basis_root.cpp - the root kept beside a signature: read back only for the
// very bytes it was written for, never through a symlink or from a damaged record.
#include "test_helpers.hpp"

#include <rdelta/basis_root.hpp>

#include <unistd.h>
#include <filesystem>

#include <doctest/doctest.h>

using namespace rdelta;
namespace fs = std::filesystem;

TEST_CASE("basis root: kept for exactly the signature's bytes") {
    test::temp_dir dir;
    const std::string sig = (dir.path / "night.sig").string();
    test::write_file(sig, "a signature's bytes");
    const chunk_root root{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    CHECK(basis_root_path(sig) == (dir.path / ".night.sig.rdelta-root").string());
    CHECK(basis_root_path("x.sig") == ".x.sig.rdelta-root");
    CHECK_FALSE(read_basis_root(sig));  // none yet
    REQUIRE(write_basis_root(sig, root, false).ok());
    CHECK(read_basis_root(sig) == root);
    // Rewritten, the signature is another one: the record no longer counts.
    test::write_file(sig, "another signature");
    CHECK_FALSE(read_basis_root(sig));
    // A record replaced by a symlink to a good one is not followed.
    test::write_file(sig, "a signature's bytes");
    REQUIRE(read_basis_root(sig) == root);
    const fs::path kept = basis_root_path(sig), moved = dir.path / "elsewhere";
    fs::rename(kept, moved);
    fs::create_symlink(moved, kept);
    CHECK_FALSE(read_basis_root(sig));
    fs::remove(kept);
    // Damaged records are ignored.
    for (const std::string& bad :
         {std::string(), std::string("rdelta-root 1 zz\n"), "rdelta-root 2 " + std::string(65, '0') + "\n"}) {
        test::write_file(kept, bad);
        CHECK_FALSE(read_basis_root(sig));
    }
}

TEST_CASE("basis root: the root a delta's trailer gives") {
    test::bytes tail(100, 0);
    CHECK_FALSE(delta_output_root(tail));
    // "rdcm", length, chunk 65536, root: the last 32 bytes.
    const std::uint8_t head[] = {0x72, 0x64, 0x63, 0x6d, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 0};
    std::copy(std::begin(head), std::end(head), tail.end() - 32);
    for (int i = 0; i < 16; ++i) tail[tail.size() - 16 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
    const auto root = delta_output_root(tail);
    REQUIRE(root);
    CHECK((*root)[15] == 15);
}
