"""gns3api — the few REST calls the developer scripts make to a real
gns3-server (and to nodedesk, which answers the same /v2): one JSON
request, one that must succeed, and a wait until servers answer.

The scripts' Python runs from a heredoc; they import this with
sys.path.insert(0, os.environ["SCRIPTS"]).
"""
import json
import sys
import time
import urllib.error
import urllib.request


class Server:
    """A /v2 API at base (http://127.0.0.1:PORT/v2)."""

    def __init__(self, base, timeout=300):
        self.base = base
        self.timeout = timeout

    def call(self, method, path, body=None):
        """Answers (status, JSON body, or raw bytes when not JSON; the
        error's text for an HTTP error)."""
        req = urllib.request.Request(self.base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                raw = r.read()
                return r.status, (json.loads(raw) if raw and r.headers.get_content_type() == "application/json" else raw)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def must(self, method, path, body=None, want=(200, 201, 204)):
        """call, ending the script with what went wrong unless the status
        is one of want; answers the body."""
        st, out = self.call(method, path, body)
        if st not in want:
            sys.exit("FAIL %s %s -> %s %s" % (method, path, st, out))
        return out

    def up(self):
        try:
            return self.call("GET", "/version")[0] == 200
        except OSError:
            return False


def wait_up(*servers, seconds=60, log=""):
    """Waits until every server answers GET /version, or ends the script
    (log: where to look)."""
    end = time.time() + seconds
    while time.time() < end:
        if all(s.up() for s in servers):
            return
        time.sleep(0.5)
    sys.exit("a server did not answer within %ds%s" % (seconds, "; see " + log if log else ""))
