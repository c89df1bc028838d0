#!/usr/bin/env python3
"""A loopback SMTP server for Yam's mail tests, built on aiosmtpd.

It requires AUTH (PLAIN or LOGIN; TLS is not needed on loopback) and stores
each message exactly as received, CRLF and all, in a Maildir per recipient:
ROOT/<local part>/Maildir/new/. A real IMAP server (Dovecot) serves those
Maildirs, so a test can send with one client and read with another.

    smtp_sink.py --root DIR --port 2525 --user yam --password secret [--owner nobody]

It stops on SIGTERM or SIGINT.
"""
import argparse
import os
import pwd
import signal
import socket
import threading
import time
import warnings

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

# aiosmtpd warns that AUTH without TLS is unsafe; on loopback it is the point.
warnings.simplefilter("ignore")


class MaildirSink:
    """Delivers every message into the recipient's Maildir, atomically."""

    def __init__(self, root, owner):
        self.root = root
        self.owner = owner
        self.counter = 0
        self.lock = threading.Lock()

    def maildir(self, local):
        base = os.path.join(self.root, local, "Maildir")
        for sub in ("", "tmp", "new", "cur"):
            path = os.path.join(base, sub)
            os.makedirs(path, mode=0o700, exist_ok=True)
            self.chown(path)
        return base

    def chown(self, path):
        if self.owner is not None:
            os.chown(path, self.owner.pw_uid, self.owner.pw_gid)

    async def handle_DATA(self, server, session, envelope):
        data = envelope.original_content
        for recipient in envelope.rcpt_tos:
            local = recipient.split("@", 1)[0].lower().replace("/", "_")
            base = self.maildir(local)
            with self.lock:
                self.counter += 1
                name = "%d.P%dQ%d.%s" % (time.time_ns(), os.getpid(), self.counter, socket.gethostname())
            tmp = os.path.join(base, "tmp", name)
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            self.chown(tmp)
            # A rename publishes the message whole: a reader never sees half.
            os.rename(tmp, os.path.join(base, "new", name))
        return "250 OK delivered"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2525)
    parser.add_argument("--root", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--owner", help="chown deliveries to this user (when run as root)")
    args = parser.parse_args()

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login == args.user.encode()
            and auth_data.password == args.password.encode()
        )
        return AuthResult(success=ok, handled=False)

    owner = pwd.getpwnam(args.owner) if args.owner else None
    controller = Controller(
        MaildirSink(args.root, owner),
        hostname=args.host,
        port=args.port,
        authenticator=authenticate,
        auth_required=True,
        auth_require_tls=False,
    )
    controller.start()
    print("smtp sink on %s:%d" % (args.host, args.port), flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
