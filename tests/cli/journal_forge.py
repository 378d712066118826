"""Helpers of the trust tests: journals forged by hand from docs/format.md, the
image's note, the tool run as root or as another user."""
import ctypes
import os
import resource
import struct
import subprocess
import sys


MiB = 1 << 20
JOURNAL_MAGIC, HOT, COMMITTED, DATA = 0x72646A6E, 1, 2, 1

_xxhash = ctypes.CDLL("libxxhash.so.0")
_xxh3 = _xxhash.XXH3_64bits_withSeed
_xxh3.restype = ctypes.c_uint64
_xxh3.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]


def xxh3(data, seed=0):
    return _xxh3(bytes(data), len(data), seed)


def journal_bytes(st, records, state=HOT, old_size=None, new_size=None, ino=None, nonce=0x1234):
    """A journal written by hand from docs/format.md: records are (pos, data)."""
    body = bytearray()
    for index, (pos, data) in enumerate(records):
        head = struct.pack(">IIQQQ", DATA, 0, pos, len(data), index)
        body += head + struct.pack(">Q", xxh3(head + data, nonce)) + data
    old = st.st_size if old_size is None else old_size
    header = struct.pack(">IIQI4xQQQQQQQ", JOURNAL_MAGIC, 1, 1, state, nonce, st.st_dev,
                         st.st_ino if ino is None else ino, old, old if new_size is None else new_size,
                         4096 + len(body), len(records))
    header += struct.pack(">Q", xxh3(header))
    out = bytearray(4096)
    out[0:88] = header
    out[512:600] = header
    return bytes(out + body)


def set_note(image, nonce=0x1234, journal=None):
    """The note an in-place patch sets on its image (docs/format.md): it binds the
    image to the journal with this nonce, and recovery replays no other one."""
    st = os.stat(image)
    value = f"2 journal {st.st_dev} {st.st_ino} {nonce:016x} {journal or journal_of(os.path.abspath(image))}"
    os.setxattr(image, "user.rdelta.unfinished", value.encode())


def journal_of(image):
    d, b = os.path.split(image)
    return os.path.join(d, "." + b + ".rdelta-journal")


def remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def content(path):
    with open(path, "rb") as f:
        return f.read()


def note_of(path):
    try:
        return os.getxattr(path, "user.rdelta.unfinished", follow_symlinks=False)
    except OSError:
        return None


class Tool:
    def __init__(self, rdelta, rdelta_test=None):
        # rdelta-test: the build that obeys the test hooks' variables (hook_env.py).
        self.rdelta, self.rdelta_test = rdelta, rdelta_test

    def run(self, *args, user=None, limit_kib=None, timeout=120):
        def preexec():
            if limit_kib:
                resource.setrlimit(resource.RLIMIT_AS, (limit_kib * 1024, limit_kib * 1024))
            if user:
                os.setgid(user.pw_gid)
                os.setuid(user.pw_uid)
        return subprocess.run([self.rdelta, *args], capture_output=True, text=True, timeout=timeout,
                              preexec_fn=preexec if (user or limit_kib) else None)


def as_user(user, fn):
    """Run fn() in a child process with the user's ids (the attacker's actions)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            fn()
            os._exit(0)
        except BaseException as e:  # noqa: BLE001 - report and leave the child
            print("attacker step failed:", e, file=sys.stderr)
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def make_delta(tool, old, new, delta, *extra):
    sig = delta + ".sig"
    r = tool.run("signature", "-f", old, sig)
    assert r.returncode == 0, r.stderr
    r = tool.run("delta", "-f", *extra, sig, new, delta)
    assert r.returncode == 0, r.stderr
    os.unlink(sig)
