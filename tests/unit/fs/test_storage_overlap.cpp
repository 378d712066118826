// test_storage_overlap.cpp - an output written directly that is also an input:
// the same file or device, a partition and its disk, a device-mapper device and
// what it is built on, a loop device and its backing file. Block devices are
// described by a fake sysfs tree laid out as the kernel's (/sys/dev/block/MAJ:MIN
// are links into /sys/devices, a partition is a folder inside its disk's).
#include "fs/storage_overlap.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <doctest/doctest.h>

using namespace rdelta::io_detail;
namespace fs = std::filesystem;

namespace {

struct fake_sysfs {
    fs::path root, backing;
    fake_sysfs() {
        std::string pattern = (fs::temp_directory_path() / "rdelta-sysfs-XXXXXX").string();
        REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        root = pattern;
        backing = root / "image";
        std::ofstream(backing) << "data";
        device("devices/sda", "8:0");
        device("devices/sda/sda1", "8:1", true);
        device("devices/sda/sda2", "8:2", true);
        device("devices/dm-0", "253:0");
        fs::create_directories(root / "devices/dm-0/slaves");
        fs::create_directory_symlink("../../sda/sda2", root / "devices/dm-0/slaves/sda2");
        device("devices/loop0", "7:0");
        fs::create_directories(root / "devices/loop0/loop");
        std::ofstream(root / "devices/loop0/loop/backing_file") << backing.string() << "\n";
    }
    ~fake_sysfs() { fs::remove_all(root); }

    void device(const std::string& dir, const std::string& id, bool partition = false) {
        fs::create_directories(root / dir);
        std::ofstream(root / dir / "dev") << id << "\n";
        if (partition) std::ofstream(root / dir / "partition") << "1\n";
        fs::create_directories(root / "dev/block");
        fs::create_directory_symlink("../../" + dir, root / "dev/block" / id);
    }

    std::vector<std::string> block(unsigned maj, unsigned min) const {
        struct stat st {};
        st.st_mode = S_IFBLK | 0600;
        st.st_rdev = makedev(maj, min);
        return storage_under(st, root.string());
    }
    std::vector<std::string> file(const fs::path& path) const {
        struct stat st {};
        REQUIRE(::stat(path.c_str(), &st) == 0);
        return storage_under(st, root.string());
    }
};

}  // namespace

TEST_CASE("storage_overlaps: a device, its partitions, and what device-mapper builds on them") {
    fake_sysfs sys;
    const auto sda = sys.block(8, 0), sda1 = sys.block(8, 1), sda2 = sys.block(8, 2), dm0 = sys.block(253, 0);
    CHECK(storage_overlaps(sda, sda));
    CHECK(storage_overlaps(sda1, sda));
    CHECK(storage_overlaps(sda, sda1));
    CHECK_FALSE(storage_overlaps(sda1, sda2));  // both on sda, but not on each other
    CHECK(storage_overlaps(dm0, sda2));
    CHECK(storage_overlaps(sda2, dm0));
    CHECK(storage_overlaps(dm0, sda));
    CHECK_FALSE(storage_overlaps(dm0, sda1));
    CHECK(dm0 == std::vector<std::string>{"b:253:0", "b:8:2", "b:8:0"});
}

TEST_CASE("storage_overlaps: a loop device and its backing file; files by inode") {
    fake_sysfs sys;
    const auto loop0 = sys.block(7, 0), image = sys.file(sys.backing);
    std::ofstream(sys.root / "other") << "other";
    const auto other = sys.file(sys.root / "other");
    CHECK(storage_overlaps(loop0, image));
    CHECK(storage_overlaps(image, loop0));
    CHECK_FALSE(storage_overlaps(loop0, other));
    CHECK(storage_overlaps(image, image));
    CHECK_FALSE(storage_overlaps(image, other));
    fs::create_hard_link(sys.backing, sys.root / "second-name");
    CHECK(storage_overlaps(sys.file(sys.root / "second-name"), image));
}

TEST_CASE("storage_overlaps: pipes, character devices and unknown devices share nothing") {
    fake_sysfs sys;
    struct stat fifo {};
    fifo.st_mode = S_IFIFO | 0600;
    CHECK(storage_under(fifo, sys.root.string()).empty());
    struct stat chr {};
    chr.st_mode = S_IFCHR | 0600;
    chr.st_rdev = makedev(1, 3);
    CHECK(storage_under(chr, sys.root.string()).empty());
    CHECK_FALSE(storage_overlaps(storage_under(fifo, sys.root.string()), sys.block(8, 0)));
    CHECK(sys.block(9, 9) == std::vector<std::string>{"b:9:9"});  // not in sysfs: itself only
    CHECK_FALSE(storage_overlaps(sys.block(9, 9), sys.block(8, 0)));
}
