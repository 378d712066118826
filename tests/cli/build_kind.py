"""What kind of build a program under test is."""


def sanitized(program):
    """True for an AddressSanitizer build: gcc links libasan dynamically, clang links
    its runtime statically, and either way the program names `__asan_init`."""
    with open(program, "rb") as f:
        return b"__asan_init" in f.read()
