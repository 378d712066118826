"""The count of checks that the CLI test scripts keep and print at their end
('N passed, M failed'; meson reads the exit status)."""
passed = failed = 0


def check(ok, what):
    """Count one check; print what failed. Returns ok, so a caller can stop early."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, flush=True)
    return ok


def summary():
    """Print the count; the exit status for it (1 when anything failed)."""
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
