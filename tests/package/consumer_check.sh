#!/usr/bin/env bash
# Installs the build into a staging folder (meson install --destdir) and builds a
# program outside the tree against it, four ways: pkg-config with the shared
# library (checking its SONAME), pkg-config --static, CMake's find_package(rdelta)
# with the shared library, and with RDELTA_USE_STATIC_LIBS. Each program runs a
# signature, delta, patch round trip, the delta also zstd-compressed and read back.
# The example programs (examples/) are built the same way and run.
# Also what the install holds besides: COPYING, and with the options on, the rdiff
# link's man page and librsync.so.2's own pkg-config file (a C program built with
# it, run through its rpath).
# Usage: consumer_check.sh BUILD_DIR SOURCE_DIR [rdiff_symlink=true|false]
# [install_librsync_compat=true|false]. Prints 'N passed, M failed'.
set -u
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
rdiff_symlink=false install_librsync_compat=false
for setting in "${@:3}"; do declare "$setting"; done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

if ! meson install -C "$build" --destdir "$stage" >"$stage/install.log" 2>&1; then
  cat "$stage/install.log"; ko "meson install"; finish
fi
pcfile=$(find "$stage" -name rdelta.pc | head -n 1)
libdir=$(dirname "$(dirname "$pcfile")")
share=$(find "$stage" -type d -name share | head -n 1)

# The licence where distributions look for it.
cmp -s "$share/doc/rdelta/COPYING" "$source_dir/COPYING" && ok || ko "COPYING is not installed in share/doc/rdelta"
# The rdiff link comes with its man page, a link to rdelta's.
if [ "$rdiff_symlink" = true ]; then
  [ "$(readlink "$share/man/man1/rdiff.1")" = rdelta.1 ] && ok || ko "rdiff.1 is not a link to rdelta.1"
fi
# The static CMake package asks only for what librdelta.a links: not libcrypto.
cmake_config=$(find "$stage" -name rdeltaConfig.cmake | head -n 1)
grep -q 'pkg_check_modules.*libcrypto' "$cmake_config" && ko "rdeltaConfig.cmake requires libcrypto, which librdelta does not link" || ok
# librsync.so.2's own pkg-config file: a C program built with it loads our library.
if [ "$install_librsync_compat" = true ]; then
  compat_pc=$(find "$stage" -name rdelta-librsync.pc | head -n 1)
  if [ -n "$compat_pc" ]; then
    ok
    mkdir -p "$stage/src"
    printf '#include <stdio.h>\n#include <librsync.h>\nint main(void) { puts(rs_librsync_version); return 0; }\n' \
      >"$stage/src/version.c"
    cpc() { PKG_CONFIG_PATH=$(dirname "$compat_pc") pkg-config --define-variable=prefix="$stage$prefix" "$@" rdelta-librsync; }
    prefix=$(PKG_CONFIG_PATH=$(dirname "$compat_pc") pkg-config --variable=prefix rdelta-librsync)
    if cc -o "$stage/compat-version" "$stage/src/version.c" $(cpc --cflags --libs) -Wl,-rpath,"$(cpc --variable=rpath)"; then
      case $(env -u LD_LIBRARY_PATH "$stage/compat-version") in
        "rdelta "*) ok ;;
        *) ko "a program built with rdelta-librsync.pc does not run on rdelta's librsync.so.2" ;;
      esac
    else
      ko "build a C program with pkg-config rdelta-librsync"
    fi
  else
    ko "librsync.so.2 is installed without its pkg-config file (rdelta-librsync.pc)"
  fi
fi
mkdir -p "$stage/src"
cat > "$stage/src/roundtrip.cpp" <<'CPP'
#include <rdelta/rdelta.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
// The delta travels zstd-compressed: written through compressing_writer, read
// back through decompressing_reader (which finds the codec by itself).
int main() {
    std::vector<std::uint8_t> basis(100000), next;
    for (std::size_t i = 0; i < basis.size(); ++i) basis[i] = static_cast<std::uint8_t>(i * 7919 >> 3);
    next = basis;
    next.insert(next.begin() + 5000, {1, 2, 3});
    auto sig_bytes = rdelta::make_signature(basis, rdelta::sig_params{});
    if (!sig_bytes) return 1;
    auto sig = rdelta::load_signature(*sig_bytes);
    if (!sig || !sig->build_index()) return 2;
    auto delta = rdelta::make_delta(*sig, next);
    if (!delta) return 3;
    auto out = rdelta::apply_patch(basis, *delta);
    if (!out || *out != next) return 4;
    std::vector<std::uint8_t> packed;
    auto zstd = rdelta::compressing_writer::open({rdelta::codec::zstd, 19}, "delta.zst",
        [&](std::span<const std::uint8_t> b) -> rdelta::result<void> {
            packed.insert(packed.end(), b.begin(), b.end());
            return {};
        });
    if (!zstd || !zstd->write(*delta) || !zstd->finish()) return 5;
    if (rdelta::detect_codec(packed) != rdelta::codec::zstd) return 6;
    rdelta::memory_source file(packed, "delta.zst");
    auto reader = rdelta::decompressing_reader::open(file);
    if (!reader || reader->kind() != rdelta::codec::zstd) return 7;
    rdelta::memory_basis old_data(basis);
    auto patch = rdelta::make_patch_job(old_data);
    std::vector<std::uint8_t> rebuilt;
    auto done = rdelta::drive_job(*patch, *reader, [&](std::span<const std::uint8_t> b) -> rdelta::result<void> {
        rebuilt.insert(rebuilt.end(), b.begin(), b.end());
        return {};
    });
    if (!done || rebuilt != next) return 8;
    packed.resize(packed.size() - 3);  // a cut stream is an error value, never an exception
    rdelta::memory_source cut(packed, "delta.zst");
    auto cut_reader = rdelta::decompressing_reader::open(cut);
    std::vector<std::uint8_t> buf(1 << 20);
    if (!cut_reader) return 9;
    auto got = cut_reader->read_full(buf);
    if (got || got.err().code != rdelta::errc::input_ended) return 10;
    std::printf("round trip ok with rdelta %s, delta %zu bytes, %zu with zstd\n", rdelta::version, delta->size(),
                packed.size() + 3);
    return 0;
}
CPP

# The shared library carries its versioned SONAME.
soname=$(objdump -p "$libdir/librdelta.so" 2>/dev/null | awk '/SONAME/ {print $2}')
[ "$soname" = "librdelta.so.0" ] && ok || ko "SONAME is '$soname', not librdelta.so.0"

export PKG_CONFIG_PATH=$(dirname "$pcfile")
prefix=$(pkg-config --variable=prefix rdelta)
pc() { pkg-config --define-variable=prefix="$stage$prefix" "$@" rdelta; }
cflags=$(pc --cflags)
case "$cflags" in *boost*) ko "pkg-config --cflags leaks Boost: $cflags" ;; *) ok ;; esac
# The consumer picks its C++ standard (20 or later): no -std= forced on it.
case "$cflags" in *-std=*) ko "pkg-config --cflags forces a standard: $cflags" ;; *) ok ;; esac
for mode in shared static; do
  flags=$(pc --cflags --libs $([ $mode = static ] && echo --static)) || { ko "pkg-config ($mode)"; continue; }
  exe="$stage/roundtrip-pc-$mode"
  if [ $mode = static ]; then
    c++ -std=c++20 -o "$exe" "$stage/src/roundtrip.cpp" -I"$stage$prefix/include" "$libdir/librdelta.a" \
      $(pc --static --libs-only-other --libs-only-l | sed 's/-lrdelta//') || { ko "build with pkg-config --static"; continue; }
    objdump -p "$exe" | grep -q 'NEEDED.*librdelta' && ko "static build still needs librdelta.so" || ok
  else
    c++ -std=c++20 -o "$exe" "$stage/src/roundtrip.cpp" $flags || { ko "build with pkg-config"; continue; }
  fi
  LD_LIBRARY_PATH=$libdir "$exe" && ok || ko "run pkg-config $mode program"
done

# The library guide's examples, from the installed headers and pkg-config alone.
for example in "$source_dir"/examples/*.cpp; do
  exe="$stage/$(basename "$example" .cpp)"
  if c++ -std=c++20 -Wall -Werror -o "$exe" "$example" $(pc --cflags --libs); then ok; else ko "build $example with pkg-config"; fi
done
LD_LIBRARY_PATH=$libdir "$stage/streaming_service" >/dev/null && ok || ko "run streaming_service from the install"

if command -v cmake >/dev/null; then
  cat > "$stage/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(rdelta_consumer CXX)
find_package(rdelta 0.1 REQUIRED)
add_executable(roundtrip roundtrip.cpp)
target_link_libraries(roundtrip PRIVATE rdelta::rdelta)
CMAKE
  for mode in shared static; do
    bdir="$stage/cmake-$mode"
    if cmake -S "$stage/src" -B "$bdir" -DCMAKE_PREFIX_PATH="$stage$prefix" \
         $([ $mode = static ] && echo -DRDELTA_USE_STATIC_LIBS=ON) >"$stage/cmake-$mode.log" 2>&1 &&
       cmake --build "$bdir" >>"$stage/cmake-$mode.log" 2>&1; then
      LD_LIBRARY_PATH=$libdir "$bdir/roundtrip" && ok || ko "run CMake $mode program"
    else
      cat "$stage/cmake-$mode.log"; ko "CMake find_package(rdelta) $mode"
    fi
  done
else
  ko "cmake is not installed (.ci/install-deps installs it)"
fi
finish
