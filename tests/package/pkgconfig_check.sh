#!/usr/bin/env bash
# Installs the build into a staging folder and builds a program outside the tree
# with only `pkg-config rdelta`, then runs it: signature, delta, patch round trip.
# Usage: pkgconfig_check.sh BUILD_DIR. Prints 'N passed, M failed'.
set -u
build=$(cd "$1" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
if ! meson install -C "$build" --destdir "$stage" >"$stage/install.log" 2>&1; then
  cat "$stage/install.log"; echo "0 passed, 1 failed"; exit 1
fi
pcdir=$(dirname "$(find "$stage" -name rdelta.pc | head -n 1)")
cat > "$stage/roundtrip.cpp" <<'CPP'
#include <rdelta/rdelta.hpp>
#include <cstdio>
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
    std::printf("round trip ok with rdelta %s, delta %zu bytes\n", rdelta::version, delta->size());
    return 0;
}
CPP
export PKG_CONFIG_PATH=$pcdir
prefix=$(pkg-config --variable=prefix rdelta)
flags=$(pkg-config --define-variable=prefix="$stage$prefix" --static --cflags --libs rdelta) || { echo "pkg-config failed"; echo "0 passed, 1 failed"; exit 1; }
if ! c++ -std=c++20 -o "$stage/roundtrip" "$stage/roundtrip.cpp" $flags; then
  echo "pkg-config flags: $flags"; echo "0 passed, 1 failed"; exit 1
fi
if "$stage/roundtrip"; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; exit 1; fi
