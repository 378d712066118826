"""The count of checks that the CLI test scripts keep and print at their end
('N passed, M failed', and 'K skipped' when cases could not run here; meson reads
the exit status: 1 when a check failed or none ran, 77 when every case was skipped)."""
passed = failed = skipped = 0


def check(ok, what):
    """Count one check; print what failed. Returns ok, so a caller can stop early."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, flush=True)
    return ok


def skip(what):
    """Count a case that cannot run here, saying why: it is not a pass."""
    global skipped
    skipped += 1
    print("SKIP:", what, flush=True)


def summary():
    """Print the count; the exit status for it: 1 when anything failed or nothing
    was checked, 77 (skipped) when nothing ran but cases were skipped."""
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    if failed:
        return 1
    if passed == 0:
        if skipped:
            return 77
        print("FAIL: no check ran")
        return 1
    return 0
