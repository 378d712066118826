#!/usr/bin/env python3
"""The installed tool and libraries carry no test hooks (src/core/test_hooks.hpp):
none of them holds a name of the environment variables the hooks read
(RDELTA_TEST_*, RDELTA_GATHER, RDELTA_INPLACE_BATCH_BYTES), which only the test
programs' hooks (tests/hooks/test_hooks_on.cpp) may. rdelta-test, which links those
hooks, must hold every name: a check that could not see them would prove nothing.
Usage: no_test_hooks_check.py RDELTA_TEST INSTALLED_FILE... Prints 'N passed, M failed'."""
import os
import sys

NAMES = [b"RDELTA_TEST_", b"RDELTA_GATHER", b"RDELTA_INPLACE_BATCH_BYTES"]


def held(path):
    """The names the file at `path` holds anywhere in its bytes."""
    with open(path, "rb") as f:
        data = f.read()
    return [n.decode() for n in NAMES if n in data]


def main():
    control, installed = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    missing = sorted(set(n.decode() for n in NAMES) - set(held(control)))
    if missing:
        failed += 1
        print(f"FAIL: {os.path.basename(control)} lacks {missing}: the hooks' names are not where this check looks")
    else:
        passed += 1
    for path in installed:
        found = held(path)
        if found:
            failed += 1
            print(f"FAIL: {os.path.basename(path)} holds {found}: installed code reads a test hook's variable "
                  f"(hooks belong in tests/hooks/test_hooks_on.cpp, behind src/core/test_hooks.hpp)")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not installed else 0


if __name__ == "__main__":
    sys.exit(main())
