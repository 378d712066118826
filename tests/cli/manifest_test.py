#!/usr/bin/env python3
"""The image's chunk manifest: a nightly in-place patch reads only the chunks it
changes once the image has one; `rdelta verify` compares the whole image with it;
a manifest that is stale, damaged, not ours or a planted symlink is never trusted
(a whole read instead, never a wrong image); a wrong basis is still refused. A
patch killed after its commit, or rolled back, leaves a manifest that recovery
brings up to date (verify passes without a word of change, the next patch uses
it); killed at the manifest's rename, the old manifest is emptied by recovery
instead of being reported as a change made by other means.
Usage: manifest_test.py --rdelta PATH --rdelta-test PATH (the build with the
test hooks). Prints 'N passed, M failed'."""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from tally import check, summary

MiB = 1 << 20
SIZE = 48 * MiB
MANIFEST = ".backup.rdelta-manifest"


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def content(path):
    with open(path, "rb") as f:
        return f.read()


def edit(rng, path, count):
    """`count` scattered 4 KiB writes, as a day of a VM's churn."""
    with open(path, "r+b") as f:
        for _ in range(count):
            f.seek(rng.randrange(SIZE - 4096))
            f.write(rng.randbytes(4096))


def night(rdelta, rng, edits=20, basis_sig="host.sig"):
    """Edit the image, make the delta and the next signature, patch the backup in
    place; the patch's JSON statistics (None when it failed) and the run."""
    edit(rng, "image", edits)
    for f in ("next.sig", "d"):
        if os.path.exists(f):
            os.unlink(f)
    r = run(rdelta, "delta", "--new-signature", "next.sig", basis_sig, "image", "d")
    assert r.returncode == 0, r.stderr
    p = run(rdelta, "patch", "--in-place", "--json", "backup", "d")
    stats = None
    for line in p.stderr.splitlines():
        if line.startswith("{"):
            stats = json.loads(line)
    if p.returncode == 0:
        os.replace("next.sig", "host.sig")
    return stats, p


def setup(rdelta, rng):
    with open("image", "wb") as f:  # sparse, with some data
        f.truncate(SIZE)
        for at in (2 * MiB, 20 * MiB + 333, 40 * MiB):
            f.seek(at)
            f.write(rng.randbytes(3 * MiB))
    subprocess.run(["cp", "--sparse=always", "image", "backup"], check=True)
    subprocess.run([rdelta, "signature", "image", "host.sig"], check=True)


def first_nights(rdelta, rng):
    stats, p = night(rdelta, rng)
    check(p.returncode == 0 and content("backup") == content("image"), f"first night patches ({p.stderr!r})")
    check(stats and not stats["manifest_used"] and stats["manifest_published"],
          f"first night: no manifest to use, one published ({stats})")
    st = os.lstat(MANIFEST) if os.path.exists(MANIFEST) else None
    check(st is not None and st.st_mode & 0o777 == 0o600 and st.st_uid == os.getuid(), "the manifest is private")
    stats, p = night(rdelta, rng, edits=10)
    check(p.returncode == 0 and content("backup") == content("image"), f"second night patches ({p.stderr!r})")
    check(stats and stats["manifest_used"] and stats["verify_bytes_read"] <= 10 * 6 * 65536,
          f"second night reads only the chunks around its 10 edits, not {SIZE} bytes ({stats})")
    r = run(rdelta, "verify", "backup")
    check(r.returncode == 0 and "match its manifest" in r.stderr, f"verify: the image matches ({r.stderr!r})")
    r = run(rdelta, "verify", "-q", "backup")
    check(r.returncode == 0 and r.stderr == "", f"verify -q says nothing when it matches ({r.stderr!r})")


def distrust(rdelta, rng):
    # Changed by another tool (same bytes, but the change time moves): verify says so
    # and passes, since the data matches; the patch no longer trusts the manifest.
    with open("backup", "r+b") as f:
        b = f.read(1)
        f.seek(0)
        f.write(b)
    r = run(rdelta, "verify", "backup")
    check(r.returncode == 0 and "change time moved since its manifest" in r.stderr and "data did not" in r.stderr,
          f"verify: same data, change time moved ({r.stderr!r})")
    r = run(rdelta, "verify", "--json", "backup")
    check(r.returncode == 0 and '"changed_since_manifest": true' in r.stdout and '"clean": true' in r.stdout,
          f"verify --json: changed since, clean ({r.stdout!r})")
    stats, p = night(rdelta, rng)
    check(p.returncode == 0 and content("backup") == content("image") and stats and not stats["manifest_used"],
          f"a stale manifest is not used ({stats})")
    # A damaged entry: verify names the chunk; the patch reads everything, still right.
    with open(MANIFEST, "r+b") as f:
        f.seek(72 + 16 * 5)
        f.write(b"\xff" * 16)
    r = run(rdelta, "verify", "backup")
    check(r.returncode == 106 and "at bytes 327680..393216" in r.stderr, f"verify names the chunk that differs ({r.stderr!r})")
    stats, p = night(rdelta, rng)
    check(p.returncode == 0 and content("backup") == content("image") and stats and not stats["manifest_used"],
          f"a damaged manifest costs a whole read, not a wrong image ({stats})")
    # Not ours: owned by another user, or writable by others; a symlink planted.
    for how in ("chown", "chmod"):
        if how == "chown":
            os.chown(MANIFEST, 65534, 65534)
        else:
            os.chmod(MANIFEST, 0o666)
        stats, p = night(rdelta, rng)
        st = os.lstat(MANIFEST)
        check(p.returncode == 0 and stats and not stats["manifest_used"] and st.st_uid == os.getuid() and
              st.st_mode & 0o777 == 0o600, f"a manifest {how}ed to another is ignored and replaced ({stats})")
    with open("victim", "wb") as f:
        f.write(b"precious")
    os.unlink(MANIFEST)
    os.symlink(os.path.abspath("victim"), MANIFEST)
    stats, p = night(rdelta, rng)
    check(p.returncode == 0 and content("victim") == b"precious" and not os.path.islink(MANIFEST) and
          stats and not stats["manifest_used"], f"a symlink under the manifest's name is replaced, not followed ({stats})")


def wrong_basis(rdelta, rng):
    before, manifest = content("backup"), content(MANIFEST)
    shutil.copy("image", "other")  # the delta's basis: the image with 5 edits the backup lacks
    edit(rng, "other", 5)
    subprocess.run([rdelta, "signature", "other", "other.sig"], check=True)
    shutil.copy("other", "image")
    stats, p = night(rdelta, rng, basis_sig="other.sig")
    check(p.returncode == 106 and "wrong basis" in p.stderr and content("backup") == before and
          content(MANIFEST) == manifest, f"a wrong basis is refused; image and manifest untouched ({p.stderr!r})")
    if os.path.exists("next.sig"):
        os.unlink("next.sig")
    r = run(rdelta, "verify", "backup")
    check(r.returncode == 0, f"... and the manifest still describes the image ({r.stderr!r})")
    subprocess.run([rdelta, "signature", "-f", "backup", "host.sig"], check=True)
    subprocess.run(["cp", "--sparse=always", "backup", "image"], check=True)


def make_delta(rdelta, rng, edits=10):
    edit(rng, "image", edits)
    for f in ("next.sig", "d"):
        if os.path.exists(f):
            os.unlink(f)
    subprocess.run([rdelta, "delta", "--new-signature", "next.sig", "host.sig", "image", "d"], check=True)


def verify_says_nothing_changed(rdelta, what):
    r = run(rdelta, "verify", "backup")
    check(r.returncode == 0 and "match its manifest" in r.stderr and "change" not in r.stderr,
          f"{what}: verify passes, and reports no change ({r.stderr!r})")


def killed_patches(rdelta, rdelta_test, rng):
    """Killed after its commit, the patch's recovery finishes it and refreshes the
    manifest from the chunks it changed; killed mid-way, it rolls back and the
    manifest takes the image's new change time. Either way verify finds nothing
    changed and the next night reads only what it changes."""
    for what, env in (("killed after the commit", {"RDELTA_TEST_KILL_AFTER_COMMIT": "1"}),
                      ("killed after a batch", {"RDELTA_INPLACE_BATCH_BYTES": "4096",
                                                "RDELTA_TEST_KILL_AFTER_BATCH": "2"})):
        make_delta(rdelta, rng)
        before = content("backup")
        p = subprocess.run([rdelta_test, "patch", "--in-place", "backup", "d"], capture_output=True, text=True,
                           env=dict(os.environ, **env))
        committed = "COMMIT" in next(iter(env))
        check(p.returncode == -9 and os.path.exists(".backup.rdelta-journal"), f"{what}: killed ({p.returncode})")
        r = run(rdelta, "verify", "backup")
        check(r.returncode != 0 and "recover" in r.stderr, f"{what}: verify asks for recovery first ({r.stderr!r})")
        r = run(rdelta, "recover", "backup")
        expected = content("image") if committed else before
        check(r.returncode == 0 and content("backup") == expected, f"{what}: recovered ({r.stderr!r})")
        verify_says_nothing_changed(rdelta, what)
        if committed:
            os.replace("next.sig", "host.sig")
        else:
            subprocess.run(["cp", "--sparse=always", "backup", "image"], check=True)
        stats, p = night(rdelta, rng)
        check(p.returncode == 0 and content("backup") == content("image") and stats and stats["manifest_used"] and
              stats["verify_bytes_read"] <= 20 * 6 * 65536, f"{what}: the next night uses the manifest ({stats})")
        verify_says_nothing_changed(rdelta, f"{what}, then a night")


def crash_before_rename(rdelta, rng):
    if not shutil.which("strace"):
        check(False, "strace is installed (the test command installs it)")
        return
    make_delta(rdelta, rng)
    old_manifest = content(MANIFEST)
    p = run("strace", "-f", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2",
            "-e", "inject=rename,renameat,renameat2:signal=SIGKILL", rdelta, "patch", "--in-place", "backup", "d")
    leftovers = [n for n in os.listdir(".") if n.startswith(MANIFEST + ".")]
    check(p.returncode != 0 and content("backup") == content("image") and content(MANIFEST) == old_manifest,
          f"killed at the manifest's rename: the image committed, the old manifest kept ({p.returncode})")
    check(len(leftovers) == 1, f"... the new manifest left under a unique name ({leftovers})")
    r = run(rdelta, "verify", "backup")
    check(r.returncode != 0 and "recover" in r.stderr, f"... verify asks for recovery first ({r.stderr!r})")
    r = run(rdelta, "recover", "backup")
    check(r.returncode == 0 and content("backup") == content("image") and content(MANIFEST) == b"",
          f"... recovery empties the old manifest, which described the image before ({r.stderr!r})")
    r = run(rdelta, "verify", "backup")
    check(r.returncode != 0 and "no manifest" in r.stderr, f"... verify then says there is none ({r.stderr!r})")
    os.replace("next.sig", "host.sig")
    stats, p = night(rdelta, rng)
    leftovers = [n for n in os.listdir(".") if n.startswith(MANIFEST + ".")]
    check(p.returncode == 0 and content("backup") == content("image") and stats and not stats["manifest_used"] and
          stats["manifest_published"] and not leftovers, f"the next night reads everything and cleans up ({stats}, {leftovers})")
    r = run(rdelta, "verify", "backup")
    check(r.returncode == 0, f"verify after the crash ({r.stderr!r})")


def refusals(rdelta):
    with open("lone", "wb") as f:
        f.write(b"x" * 1000)
    r = run(rdelta, "verify", "lone")
    check(r.returncode != 0 and "no manifest" in r.stderr and "lone" in r.stderr, f"verify without a manifest ({r.stderr!r})")
    r = run(rdelta, "verify")
    check(r.returncode == 101 and "Usage for verify" in r.stderr, f"verify without a file ({r.stderr!r})")
    with open(".lone.rdelta-journal", "wb") as f:
        f.write(b"j" * 100)
    r = run(rdelta, "verify", "lone")
    check(r.returncode != 0 and "recover" in r.stderr, f"verify refuses an interrupted patch ({r.stderr!r})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdelta-test", required=True)
    args = ap.parse_args()
    rdelta, rdelta_test = os.path.abspath(args.rdelta), os.path.abspath(args.rdelta_test)
    rng = random.Random(2026)
    with tempfile.TemporaryDirectory(prefix="rdelta-manifest-") as tmp:
        os.chdir(tmp)
        setup(rdelta, rng)
        first_nights(rdelta, rng)
        distrust(rdelta, rng)
        wrong_basis(rdelta, rng)
        killed_patches(rdelta, rdelta_test, rng)
        crash_before_rename(rdelta, rng)
        refusals(rdelta)
    sys.exit(summary())


if __name__ == "__main__":
    main()
