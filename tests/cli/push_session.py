"""push_session.py - what the push and pull tests share: an sshd of their own on
127.0.0.1, push run with --json, images edited in place, and the check that a kept
signature is an image's."""
import json
import os
import shutil
import socket
import subprocess
import time

from file_ops import read as content

MiB = 1 << 20
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_sshd(work):
    """An sshd for this test alone; returns (process, ssh command words)."""
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(work, name)], check=True)
    shutil.copy(os.path.join(work, "client_key.pub"), os.path.join(work, "authorized_keys"))
    os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation folder
    port = free_port()
    config = os.path.join(work, "sshd_config")
    with open(config, "w") as f:
        f.write(f"Port {port}\nListenAddress 127.0.0.1\nHostKey {work}/host_key\n"
                f"AuthorizedKeysFile {work}/authorized_keys\nStrictModes no\nPermitRootLogin yes\n"
                "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nPidFile none\nUseDNS no\n")
    sshd = subprocess.Popen([SSHD, "-D", "-e", "-f", config], stderr=open(os.path.join(work, "sshd.log"), "w"))
    ssh = ["ssh", "-p", str(port), "-i", f"{work}/client_key", "-o", "StrictHostKeyChecking=no",
           "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "-o", "GSSAPIAuthentication=no"]
    for _ in range(100):
        if subprocess.run(ssh + ["127.0.0.1", "true"], capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    # One connection carries the ordinary sessions: a handshake costs seconds on a
    # busy machine. The mid-stream drop uses a connection of its own.
    mux = ssh + ["-o", f"ControlPath={work}/mux", "-o", "ControlMaster=no"]
    subprocess.run(ssh + ["-o", f"ControlPath={work}/mux", "-M", "-N", "-f", "-o", "ControlPersist=yes", "127.0.0.1"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sshd, ssh, mux


def edit(path, rng, regions, size=4096):
    data = bytearray(content(path))
    for _ in range(regions):
        at = rng.randrange(len(data) - size)
        data[at:at + size] = rng.randbytes(size)
    with open(path, "wb") as f:
        f.write(data)
    return bytes(data)


class pusher:
    def __init__(self, rdelta, ssh, store):
        self.rdelta, self.ssh, self.store = rdelta, ssh, store

    def args(self, image, dest, *extra, ssh=None, remote=None):
        return [self.rdelta, "push", "--json", "--ssh", " ".join(ssh or self.ssh),
                "--remote-rdelta", remote or self.rdelta, "--signature-store", self.store, *extra, image, dest]

    def run(self, image, dest, *extra, ssh=None, remote=None, env=None):
        args = self.args(image, dest, *extra, ssh=ssh, remote=remote)
        r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=30)
        stats = {}
        for line in r.stderr.splitlines():
            if line.startswith("{"):
                stats = json.loads(line)
        return r, stats


def kept_signature_is_images(rdelta, store, image):
    header = content(store)[:12]
    block, strong = int.from_bytes(header[4:8], "big"), int.from_bytes(header[8:12], "big")
    want = subprocess.run([rdelta, "signature", "-b", str(block), "-S", str(strong), image, "-"],
                          capture_output=True).stdout
    return content(store) == want
