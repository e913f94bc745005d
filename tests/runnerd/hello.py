#!/usr/bin/python3
# hello.py: open a tunnel through the egress proxy and send it a first
# record of our choosing; print what came back, one word.
#
#	hello.py PORT HOST [options]
#
#	--sni NAME     the ClientHello's server name (default: HOST)
#	--no-sni       a ClientHello without the server_name extension
#	--ech          add an encrypted_client_hello extension (outer hello)
#	--record N     split the hello into handshake records of N bytes
#	--segment N    write N bytes at a time (TCP_NODELAY), 2 ms apart
#	--pad N        add a padding extension of N bytes
#	--bound N      send the records only up to the first that would end
#	               past byte N, of that one its header only
#	--plain TEXT   send TEXT (Python escapes) instead of a hello
#	--python CA    Python's own TLS client (its real ClientHello, split as
#	               asked) with CA as trust anchor: a whole handshake
#
# Output: "alert:N" (a TLS alert, N its description), "http:CODE",
# "tls:TYPE" (another TLS record from the far end), "handshake:ok",
# "closed", or "connect:CODE" when the CONNECT itself was not answered 200.
import os
import socket
import ssl
import struct
import sys
import time


def ext(etype, body):
    return struct.pack("!HH", etype, len(body)) + body


def client_hello(sni, ech, pad):
    exts = b""
    if sni is not None:
        name = sni.encode()
        entry = b"\x00" + struct.pack("!H", len(name)) + name
        exts += ext(0, struct.pack("!H", len(entry)) + entry)
    exts += ext(10, b"\x00\x04\x00\x17\x00\x18")        # secp256r1, secp384r1
    exts += ext(11, b"\x01\x00")                        # uncompressed points
    exts += ext(13, b"\x00\x04\x04\x01\x08\x04")        # rsa_pkcs1/pss_sha256
    if ech:
        # outer, HPKE suite, config id, enc and payload of made-up bytes
        exts += ext(0xfe0d, b"\x00\x00\x01\x00\x01\x2a\x00\x20" +
                    os.urandom(32) + b"\x00\x40" + os.urandom(64))
    if pad:
        exts += ext(21, b"\x00" * pad)
    body = b"\x03\x03" + os.urandom(32) + b"\x00"
    body += b"\x00\x06\xc0\x2f\xc0\x30\x00\x9c" + b"\x01\x00"
    body += struct.pack("!H", len(exts)) + exts
    return b"\x01" + struct.pack("!I", len(body))[1:] + body


def records(msg, size):
    out = b""
    for i in range(0, len(msg), size):
        part = msg[i:i + size]
        out += b"\x16\x03\x01" + struct.pack("!H", len(part)) + part
    return out


def unframe(data):
    """The handshake bytes of TLS records (as Python's client wrote them)."""
    msg = b""
    while data:
        n = struct.unpack("!H", data[3:5])[0]
        msg += data[5:5 + n]
        data = data[5 + n:]
    return msg


def bounded(data, bound):
    off = 0
    while off < len(data):
        n = struct.unpack("!H", data[off + 3:off + 5])[0]
        if off + 5 + n > bound:
            return data[:off + 5]
        off += 5 + n
    return data


def send(s, data, seg):
    if not seg:
        s.sendall(data)
        return
    for i in range(0, len(data), seg):
        s.sendall(data[i:i + seg])
        time.sleep(0.002)


def answer(s):
    d = b""
    try:
        while len(d) < 7:
            c = s.recv(4096)
            if not c:
                break
            d += c
    except OSError:
        pass
    if d.startswith(b"HTTP/1.1 "):
        return "http:" + d.split(b" ")[1].decode()
    if len(d) >= 7 and d[0] == 21:
        return "alert:%d" % d[6]
    if len(d) >= 1 and d[0] in (20, 22, 23):
        return "tls:%d" % d[0]
    return "closed"


def python_handshake(s, ca, host, sni, rec, seg):
    ctx = ssl.create_default_context(cafile=ca)
    if sni != host:
        ctx.check_hostname = False
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(inc, out, server_hostname=sni)
    first = True
    while True:
        try:
            tls.do_handshake()
            return "handshake:ok"
        except ssl.SSLWantReadError:
            pass
        except ssl.SSLError as e:
            return "error:" + e.reason if e.reason else "error"
        data = out.read()
        if first and rec:
            data = records(unframe(data), rec)
        first = False
        send(s, data, seg if data else 0)
        c = s.recv(65536)
        if not c:
            return "closed"
        if c[0] == 21 and len(c) >= 7 and inc.pending == 0:
            return "alert:%d" % c[6]
        inc.write(c)


def main():
    port, host = int(sys.argv[1]), sys.argv[2]
    sni, ech, rec, seg, plain, ca = host, False, 0, 0, None, None
    pad, bound = 0, 0
    args = sys.argv[3:]
    while args:
        a = args.pop(0)
        if a == "--sni":
            sni = args.pop(0)
        elif a == "--no-sni":
            sni = None
        elif a == "--ech":
            ech = True
        elif a == "--record":
            rec = int(args.pop(0))
        elif a == "--segment":
            seg = int(args.pop(0))
        elif a == "--pad":
            pad = int(args.pop(0))
        elif a == "--bound":
            bound = int(args.pop(0))
        elif a == "--plain":
            plain = args.pop(0).encode().decode("unicode_escape")
        elif a == "--python":
            ca = args.pop(0)
        else:
            sys.exit("hello.py: unknown option " + a)
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(("CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n" %
               (host, host)).encode())
    d = b""
    while b"\r\n\r\n" not in d:
        c = s.recv(1)
        if not c:
            break
        d += c
    if not d.startswith(b"HTTP/1.1 200"):
        print("connect:" + (d.split(b" ")[1].decode() if b" " in d else "-"))
        return
    if ca is not None:
        print(python_handshake(s, ca, host, sni, rec, seg))
        return
    if plain is not None:
        data = plain.encode("latin-1")
    else:
        msg = client_hello(sni, ech, pad)
        data = records(msg, rec) if rec else records(msg, len(msg))
        if bound:
            data = bounded(data, bound)
    send(s, data, seg)
    print(answer(s))


main()
