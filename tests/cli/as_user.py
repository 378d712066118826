"""Steps the CLI tests take as an unprivileged user (nobody), as an attacker would:
planting names in folders others can write. Needs root to switch users."""
import os
import sys

NOBODY, NOGROUP = 65534, 65534


def as_nobody(fn, umask=0):
    """Run fn() in a child as nobody with `umask`; True when it succeeded."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(NOGROUP)
            os.setuid(NOBODY)
            os.umask(umask)
            fn()
            os._exit(0)
        except BaseException as e:  # noqa: BLE001 - report and leave the child
            print("nobody's step failed:", e, file=sys.stderr)
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0
