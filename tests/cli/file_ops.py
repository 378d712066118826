"""file_ops.py - whole-file reads and writes and removal for the CLI tests."""

import os


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


def read(name):
    with open(name, "rb") as f:
        return f.read()


def rm(*names):
    for n in names:
        if os.path.lexists(n):
            os.remove(n)
