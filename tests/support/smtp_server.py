#!/usr/bin/python3
"""A real SMTP server for the gateway's mail tests (tests/gateway/notify.test.mjs): Debian's aiosmtpd
(python3-aiosmtpd, for Debian's /usr/bin/python3), STARTTLS required before AUTH and before any mail,
AUTH (PLAIN, LOGIN) against one user and password.
Each message accepted is appended to OUT as one JSON line {"from", "to", "data"}. While the file
REFUSE exists every message is refused with 451 (a relay that is down for a while, as the gateway
must see it: a temporary failure), and counted in OUT.refused.

usage: /usr/bin/python3 smtp_server.py PORT CERT KEY USER PASSWORD OUT REFUSE   (prints "ready" once it listens)
"""
import json
import os
import signal
import ssl
import sys

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

port, cert, key, user, password, out, refuse = sys.argv[1:8]


class Handler:
    async def handle_DATA(self, server, session, envelope):
        if os.path.exists(refuse):
            with open(out + '.refused', 'a') as f:
                f.write('1\n')
            return '451 4.3.0 not now: the relay is busy'
        with open(out, 'a') as f:
            f.write(json.dumps({'from': envelope.mail_from, 'to': envelope.rcpt_tos,
                                'data': envelope.content.decode('utf-8', 'replace')}) + '\n')
        return '250 OK'


def authenticate(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user and auth_data.password.decode() == password
    return AuthResult(success=ok)


context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
context.load_cert_chain(cert, key)
# SIGTERM ends it: blocked here (the server's thread inherits the mask), then waited for.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
controller = Controller(Handler(), hostname='127.0.0.1', port=int(port), tls_context=context, require_starttls=True,
                        authenticator=authenticate, auth_require_tls=True, auth_required=True)
controller.start()
print('ready', flush=True)
signal.sigwait({signal.SIGTERM, signal.SIGINT})
controller.stop()
