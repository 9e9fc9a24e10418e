#!/usr/bin/env python3
"""A minimal HTTP DNS API server for Tests/Benchmarks/allocations.sh.

    python3 Tests/Benchmarks/httpdns-server.py PORT [READY_FILE]

Listens on 127.0.0.1:PORT, HTTP/1.1 with keep-alive (every response has a
Content-Length), one thread per connection. Any name resolves:

  GET /resolve?name=N&type=T   (format=json)
      type 1:  {"Status":0,"Answer":[{"name":"N.","type":1,"TTL":300,"data":"192.0.2.7"}]}
      type 28: the same with type 28 and "2001:db8::7"
      others:  {"Status":0}
  GET /d?dn=N&ttl=1[&type=AAAA]  (format=dnspod)
      192.0.2.7,300   (2001:db8::7,300 with type=AAAA)

Anything else is a 404. Writes "ready" to READY_FILE once listening.
Stdlib only; each response goes out in one write.
"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote


def query_fields(query):
    fields = {}
    for part in query.split("&"):
        key, _, value = part.partition("=")
        fields[key] = unquote(value)
    return fields


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_GET(self):
        path, _, query = self.path.partition("?")
        fields = query_fields(query)
        if path == "/resolve" and "name" in fields:
            name = fields["name"].rstrip(".") + "."
            rrtype = fields.get("type", "1")
            if rrtype == "1":
                body = '{"Status":0,"Answer":[{"name":"%s","type":1,"TTL":300,"data":"192.0.2.7"}]}' % name
            elif rrtype == "28":
                body = '{"Status":0,"Answer":[{"name":"%s","type":28,"TTL":300,"data":"2001:db8::7"}]}' % name
            else:
                body = '{"Status":0}'
            self.reply(200, "OK", "application/json", body)
        elif path == "/d" and "dn" in fields:
            address = "2001:db8::7" if fields.get("type", "").upper() == "AAAA" else "192.0.2.7"
            self.reply(200, "OK", "text/plain", address + ",300")
        else:
            self.reply(404, "Not Found", "text/plain", "not found")

    def reply(self, status, reason, content_type, body):
        data = body.encode()
        self.wfile.write(
            b"HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s"
            % (status, reason.encode(), content_type.encode(), len(data), data)
        )

    def log_message(self, format, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: httpdns-server.py PORT [READY_FILE]")
    server = Server(("127.0.0.1", int(sys.argv[1])), Handler)
    if len(sys.argv) == 3:
        with open(sys.argv[2], "w") as ready:
            ready.write("ready\n")
    server.serve_forever()


if __name__ == "__main__":
    main()
