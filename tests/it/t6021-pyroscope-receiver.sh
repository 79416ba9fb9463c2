# tests/tools/pyroscope_receiver.py, the local stand-in for a Pyroscope server that the
# upload= tests send to (no Pyroscope server installs here): it accepts what Pyroscope's
# ingest API documents (POST /ingest, name with labels, from/until in UNIX seconds,
# format=pprof with the profile as the body or in a multipart form's "profile" field
# with a "sample_type_config"; the default folded text) and stores each with its query;
# it answers 400 with the reason to each malformed request (no name, no from, until
# before from, a bad name, an unknown format, a form without "profile", a profile that
# is no gzip, a configuration that is no JSON), 404 to another path, 405 to a GET; and on
# SIGUSR1 it refuses connections for --down-seconds, then takes them again on the same
# port (SIGUSR2: at once).
. "$(dirname "$0")/lib.sh"
RECV="$ROOT/tests/tools/pyroscope_receiver.py"
python3 "$RECV" --dir "$T/recv" --port-file "$T/port" --down-seconds 3 2>"$T/recv.err" &
RPID=$!
PIDS+=("$RPID")
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
PORT=$(cat "$T/port") || fail "the receiver did not start: $(cat "$T/recv.err")"
python3 - "$PORT" "$T/recv" <<'PY' || fail "the receiver's answers"
import gzip, http.client, json, os, sys
port, d = int(sys.argv[1]), sys.argv[2]
# a minimal Profile message: sample_type {type: 1, unit: 2}, string_table "", "samples", "count"
prof = gzip.compress(b'\x0a\x04\x08\x01\x10\x02' + b'\x32\x00' + b'\x32\x07samples' + b'\x32\x05count')

def post(path, body, ctype=None, method='POST'):
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
    h = {'Content-Type': ctype} if ctype else {}
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    return r.status, r.read().decode()

def form(fields, boundary='XyZ'):
    out = b''
    for name, data in fields:
        out += b'--' + boundary.encode() + b'\r\nContent-Disposition: form-data; name="' + name.encode() + \
               b'"; filename="' + name.encode() + b'"\r\nContent-Type: application/octet-stream\r\n\r\n' + data + b'\r\n'
    return out + b'--' + boundary.encode() + b'--\r\n', 'multipart/form-data; boundary=' + boundary

cfg = json.dumps({'samples': {'units': 'samples', 'aggregation': 'sum', 'display-name': 'cpu', 'sampled': True}}).encode()
q = '/ingest?name=shop%7Benv%3Dprod%2Cregion%3Deu%7D&from=1700000000&until=1700000010&format=pprof&sampleRate=100&spyName=jvmprof'
good = [
    (q, *form([('profile', prof), ('sample_type_config', cfg)])),        # the documented form, with a configuration
    (q, *form([('profile', prof)])),                                      # the form without one
    (q, prof, 'application/octet-stream'),                                # the profile as the body
    ('/ingest?name=curl-test-app&from=1615709120&until=1615709130', b'foo;bar 100\nfoo;baz 200', None),  # folded
]
for path, body, ctype in good:
    st, text = post(path, body, ctype)
    if st != 200:
        sys.exit('a good request got %d %s: %s' % (st, text, path))
bad = [
    ('/ingest?from=1&until=2&format=pprof', prof, None, 400, 'missing required parameter name'),
    ('/ingest?name=a&until=2&format=pprof', prof, None, 400, 'missing required parameter from'),
    ('/ingest?name=a&from=5&until=2&format=pprof', prof, None, 400, 'until (2) before from (5)'),
    ('/ingest?name=a&from=1.5&until=2&format=pprof', prof, None, 400, 'is no UNIX time in seconds'),
    ('/ingest?name=my%20app&from=1&until=2&format=pprof', prof, None, 400, 'is no application name'),
    ('/ingest?name=a%7Benv%7D&from=1&until=2&format=pprof', prof, None, 400, 'is no application name'),
    ('/ingest?name=a&from=1&until=2&format=xml', prof, None, 400, "format='xml' is none of"),
    ('/ingest?name=a&from=1&until=2&format=pprof&sampleRate=0', prof, None, 400, 'is no rate in Hz'),
    ('/ingest?name=a&from=1&until=2&format=pprof', *form([('sample_type_config', cfg)]), 400, 'without the field "profile"'),
    ('/ingest?name=a&from=1&until=2&format=pprof', *form([('profile', b'\x1f\x8bnot gzip')]), 400, 'not valid gzip'),
    ('/ingest?name=a&from=1&until=2&format=pprof', *form([('profile', prof), ('sample_type_config', b'{cpu')]), 400, 'not JSON'),
    ('/ingest?name=a&from=1&until=2&format=pprof', b'', None, 400, 'empty profile'),
    ('/ingest?name=a&name=b&from=1&until=2', b'x 1', None, 400, 'name given 2 times'),
    ('/push?name=a&from=1&until=2', b'x 1', None, 404, 'no such endpoint'),
]
for path, body, ctype, want, why in bad:
    st, text = post(path, body, ctype)
    if st != want or why not in text:
        sys.exit('%s: got %d %r, expected %d with %r' % (path, st, text, want, why))
c = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
c.request('GET', q)
if c.getresponse().status != 405:
    sys.exit('GET /ingest was not refused with 405')
# what was stored: the four good ones, with their queries
stored = sorted(f for f in os.listdir(d) if f.endswith('.json'))
if stored != ['0001.json', '0002.json', '0003.json', '0004.json']:
    sys.exit('stored: %s' % stored)
m = json.load(open(os.path.join(d, '0001.json')))
if m['query']['name'] != 'shop{env=prod,region=eu}' or m['query']['from'] != '1700000000' or \
        m['fields'] != ['profile', 'sample_type_config'] or m['bytes'] != len(prof):
    sys.exit('0001.json: %s' % m)
for n in ('0001', '0002', '0003'):
    if open(os.path.join(d, n + '.pb.gz'), 'rb').read() != prof:
        sys.exit(n + '.pb.gz is not the profile sent')
if open(os.path.join(d, '0004.txt'), 'rb').read() != b'foo;bar 100\nfoo;baz 200':
    sys.exit('0004.txt is not the folded profile sent')
print('  4 good requests stored; %d malformed ones refused with 400 and their reasons, another path with 404, a GET '
      'with 405' % (len(bad) - 1), file=sys.stderr)
PY
# down for 3 s on SIGUSR1: connections refused, then taken again on the same port
refused() { python3 -c "import socket,sys; s=socket.socket(); s.settimeout(2); sys.exit(0 if s.connect_ex(('127.0.0.1', $PORT)) else 1)"; }
kill -USR1 "$RPID"
for _ in $(seq 50); do refused && break; sleep 0.05; done
refused || fail "the receiver still takes connections after SIGUSR1"
sleep 1
refused || fail "the receiver came back before its 3 s"
for _ in $(seq 100); do refused || break; sleep 0.05; done
refused && fail "the receiver did not come back after its 3 s"
grep -q " down$" "$T/recv/requests.log" && grep -q " up$" "$T/recv/requests.log" || fail "requests.log has no down/up lines"
# SIGUSR2 brings it back at once
kill -USR1 "$RPID"
for _ in $(seq 50); do refused && break; sleep 0.05; done
kill -USR2 "$RPID"
for _ in $(seq 10); do refused || break; sleep 0.05; done
refused && fail "the receiver did not come back at once on SIGUSR2"
note "down on SIGUSR1 for 3 s (connections refused), back on the same port; SIGUSR2 at once"
echo "t6021 ok"
