#!/usr/bin/env python3
"""pyroscope_receiver.py -- a local stand-in for a Pyroscope server's ingest API, for the tests of upload=.

No Pyroscope (or Parca) server installs from the package registries the test machines reach, so the tests
send to this receiver instead. It implements the ingest endpoint as Pyroscope's server API documents it
(https://grafana.com/docs/pyroscope/latest/configure-server/about-server-api/, "Ingestion" and "The pprof
format"): POST /ingest with the metadata in the query -- name (the application name, with labels:
my.app{env=staging,region=us-west-1}), from and until (UNIX seconds), and the optional format (default
folded), sampleRate (Hz), spyName, units and aggregationType -- and the profile in the body: the body
itself, or, to give a sample type configuration, a multipart/form-data body with the profile in the form
file field "profile" and the JSON configuration in the field "sample_type_config".

It checks each request as strictly as the documentation allows and answers 200 (stored) or 400 with the
reason (malformed), 404 (another path), 405 (another method). For each accepted request it writes, in
--dir, NNNN.json (the query, the content type, the fields, the times) and, for pprof, NNNN.pb.gz (the
profile); every request, accepted or not, gets a line in requests.log.

Going down: on SIGUSR1 it closes its listening socket (connections are refused) for --down-seconds (30),
then listens again on the same port; SIGUSR2 brings it back at once. It writes its port to --port-file once
it listens, and "down" / "up" lines with the time to requests.log.

    pyroscope_receiver.py --dir DIR --port-file FILE [--port 0] [--down-seconds 30]
"""
import argparse
import email.parser
import email.policy
import gzip
import http.server
import json
import os
import re
import signal
import socket
import sys
import time
import urllib.parse

# what the documentation's query parameters accept
NAME_RE = re.compile(r'^[A-Za-z0-9._-]+(\{([A-Za-z_][A-Za-z0-9_.]*=[^,{}=]+(,[A-Za-z_][A-Za-z0-9_.]*=[^,{}=]+)*)?\})?$')
FORMATS = {'folded', 'lines', 'pprof', 'jfr', 'trie', 'tree'}
KNOWN = {'name', 'from', 'until', 'format', 'sampleRate', 'spyName', 'units', 'aggregationType'}


class Bad(Exception):
    pass


def check_query(query):
    """The query's parameters as a dict, or Bad(reason)."""
    q = urllib.parse.parse_qs(query, keep_blank_values=True, strict_parsing=False)
    for k, v in q.items():
        if len(v) != 1:
            raise Bad('%s given %d times' % (k, len(v)))
    q = {k: v[0] for k, v in q.items()}
    for k in ('name', 'from', 'until'):
        if k not in q or not q[k]:
            raise Bad('missing required parameter %s' % k)
    if not NAME_RE.match(q['name']):
        raise Bad('name %r is no application name (app.name or app.name{key=value,...})' % q['name'])
    for k in ('from', 'until'):
        if not re.fullmatch(r'[0-9]{1,12}', q[k]):
            raise Bad('%s=%r is no UNIX time in seconds' % (k, q[k]))
    if int(q['until']) < int(q['from']):
        raise Bad('until (%s) before from (%s)' % (q['until'], q['from']))
    fmt = q.get('format', 'folded')
    if fmt not in FORMATS:
        raise Bad('format=%r is none of %s' % (fmt, ', '.join(sorted(FORMATS))))
    if 'sampleRate' in q and not re.fullmatch(r'[1-9][0-9]{0,8}', q['sampleRate']):
        raise Bad('sampleRate=%r is no rate in Hz' % q['sampleRate'])
    return q


def check_pprof(data):
    """A pprof profile: gzipped (as pprof files are) or raw protobuf; raises Bad otherwise."""
    if not data:
        raise Bad('empty profile')
    raw = data
    if data[:2] == b'\x1f\x8b':
        try:
            raw = gzip.decompress(data)
        except Exception as e:  # noqa: BLE001 -- any gzip error is a bad profile
            raise Bad('the profile is not valid gzip: %s' % e)
    # the first field of a Profile message: sample_type (1), sample (2), ... string_table (6): a length-
    # delimited or varint field with a number 1..14
    if raw and not (1 <= raw[0] >> 3 <= 14 and raw[0] & 7 in (0, 2)):
        raise Bad('the profile is no protobuf Profile message')
    return raw


def parse_multipart(ctype, body):
    """{field name: bytes} of a multipart/form-data body, or Bad."""
    if 'boundary=' not in ctype:
        raise Bad('multipart/form-data without a boundary')
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b'Content-Type: ' + ctype.encode() + b'\r\n\r\n' + body)
    if not msg.is_multipart():
        raise Bad('the multipart body could not be parsed')
    fields = {}
    for part in msg.iter_parts():
        disp = part.get('Content-Disposition', '')
        m = re.search(r'name="([^"]*)"', disp)
        if not disp.startswith('form-data') or not m:
            raise Bad('a part without Content-Disposition: form-data; name=...')
        fields[m.group(1)] = part.get_payload(decode=True) or b''
    return fields


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'pyroscope-receiver/1'

    def log_message(self, fmt, *args):  # quiet: requests.log has what matters
        pass

    def answer(self, code, text):
        body = (text + '\n').encode()
        self.send_response(code)
        self.send_header('Content-Type', 'text/plain')
        self.send_header('Content-Length', str(len(body)))
        self.send_header('Connection', 'close')
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True
        with open(os.path.join(self.server.dir, 'requests.log'), 'a') as f:
            f.write('%.3f %d %s %s\n' % (time.time(), code, self.path, text))

    def do_GET(self):
        self.answer(405, 'only POST /ingest')

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        length = self.headers.get('Content-Length')
        if length is None or not length.isdigit():
            return self.answer(411, 'a Content-Length is required')
        body = self.rfile.read(int(length))
        if url.path != '/ingest':
            return self.answer(404, 'no such endpoint: %s (POST /ingest)' % url.path)
        try:
            q = check_query(url.query)
            ctype = self.headers.get('Content-Type', '')
            fields = {}
            if ctype.startswith('multipart/form-data'):
                fields = parse_multipart(ctype, body)
                if q.get('format', 'folded') == 'pprof':
                    if 'profile' not in fields:
                        raise Bad('format=pprof as a form without the field "profile"')
                    profile = fields['profile']
                    if 'sample_type_config' in fields:
                        try:
                            cfg = json.loads(fields['sample_type_config'])
                        except ValueError as e:
                            raise Bad('sample_type_config is not JSON: %s' % e)
                        if not isinstance(cfg, dict) or not all(isinstance(v, dict) for v in cfg.values()):
                            raise Bad('sample_type_config is not an object of objects')
                else:
                    profile = fields.get('profile', b'')
            else:
                profile = body
            if q.get('format', 'folded') == 'pprof':
                check_pprof(profile)
            elif not profile:
                raise Bad('empty body')
        except Bad as e:
            return self.answer(400, 'bad request: %s' % e)
        self.server.count += 1
        n = self.server.count
        base = os.path.join(self.server.dir, '%04d' % n)
        with open(base + '.pb.gz' if q.get('format') == 'pprof' else base + '.txt', 'wb') as f:
            f.write(profile)
        with open(base + '.json', 'w') as f:
            json.dump({'query': q, 'content_type': ctype, 'fields': sorted(fields), 'bytes': len(profile),
                       'received': time.time()}, f)
        self.answer(200, 'ok %04d' % n)


class Server(http.server.HTTPServer):
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dir', required=True)
    ap.add_argument('--port', type=int, default=0)
    ap.add_argument('--port-file', required=True)
    ap.add_argument('--down-seconds', type=float, default=30)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    state = {'down_until': 0.0}

    def go_down(_sig, _frm):
        state['down_until'] = time.time() + a.down_seconds

    def come_up(_sig, _frm):
        state['down_until'] = 0.0

    signal.signal(signal.SIGUSR1, go_down)
    signal.signal(signal.SIGUSR2, come_up)
    log = os.path.join(a.dir, 'requests.log')
    port, srv, count = a.port, None, 0
    while True:
        if time.time() < state['down_until']:
            if srv:
                count = srv.count
                srv.server_close()
                srv = None
                with open(log, 'a') as f:
                    f.write('%.3f down\n' % time.time())
            time.sleep(0.02)
            continue
        if srv is None:
            srv = Server(('127.0.0.1', port), Receiver)
            srv.dir, srv.count, srv.timeout = a.dir, count, 0.05
            if not port:
                port = srv.server_address[1]
                tmp = a.port_file + '.tmp'
                with open(tmp, 'w') as f:
                    f.write('%d\n' % port)
                os.rename(tmp, a.port_file)
            else:
                with open(log, 'a') as f:
                    f.write('%.3f up\n' % time.time())
        srv.handle_request()


if __name__ == '__main__':
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
    except OSError as e:
        print('pyroscope_receiver: %s' % e, file=sys.stderr)
        sys.exit(1)
