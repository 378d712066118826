"""The note a half-updated file carries (the `user.rdelta.unfinished` extended
attribute), for the crash tests of in-place patching and inode rewrites."""
import os


def marker(path):
    """The note on `path`, or None."""
    try:
        return os.getxattr(path, "user.rdelta.unfinished")
    except OSError:
        return None


def attributes_here(folder):
    """Whether files in `folder` can carry user extended attributes."""
    probe = os.path.join(folder, "attribute-probe")
    open(probe, "wb").close()
    try:
        os.setxattr(probe, "user.probe", b"1")
        return True
    except OSError:
        return False
    finally:
        os.remove(probe)
