"""Runs SQL on chDB (ClickHouse 26.x in-process) for the test suite.

One request per stdin line, one answer per stdout line, both JSON:
  {"sql": "...", "format": "JSONEachRow"}   format optional; without one the statement's
                                             output (if any) comes back as TabSeparated
  {"ok": true, "out": "..."} | {"ok": false, "error": "Code: 206. DB::Exception: ..."}
The session lives in the directory given as argv[1], so databases persist across requests,
as they do on a server.
"""
import json
import sys

from chdb import session as chs


def main() -> None:
    sess = chs.Session(sys.argv[1])
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            res = sess.query(req["sql"], req.get("format") or "TabSeparated")
            out = res.bytes().decode("utf-8") if hasattr(res, "bytes") else str(res)
            answer = {"ok": True, "out": out}
        except Exception as err:  # chDB raises on any server-side error; pass its text back
            answer = {"ok": False, "error": str(err)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    sess.close()


if __name__ == "__main__":
    main()
